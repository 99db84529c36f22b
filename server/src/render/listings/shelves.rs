//! Which phrases each child sitemap holds. A child is a shelf: the phrases created in one
//! span of time, a span of `2^k` microseconds aligned to its length. The whole of time
//! is cut in half, and each half again, until every span holds at most `capacity`
//! phrases; the spans that hold any are the shelves, oldest first.
//!
//! So the shelves are a function of the phrases' creation times alone, not of the
//! changes a host saw: two replicas behind one load balancer, or a host before and after
//! a restart, name the same children with the same phrases, and a crawler that reads the
//! index from one and a child from another misses nothing. A change alters only the
//! shelf its phrase's time falls in (an addition, the newest), unless that shelf, or the
//! span it was cut from, crosses `capacity`: then the span is cut again, or put back
//! together, and its shelves get new names.

use std::collections::HashSet;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use crate::feed::list::{Phrase, PhraseList};

/// A shelf's span of creation times, first to last microsecond: a child's name,
/// `/sitemaps/phrases-{first}-{last}.xml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label {
    first: u64,
    last: u64,
}

impl Label {
    /// The span of `2^bits` microseconds from `first` (a multiple of its length).
    fn span(first: u64, bits: u32) -> Self {
        let last = match 1u64.checked_shl(bits) {
            Some(length) => first + (length - 1),
            None => u64::MAX,
        };
        Self { first, last }
    }

    /// Reads `{first}-{last}` as [`Label`]'s `Display` writes it; `None` unless it is a
    /// span a shelf could be.
    pub fn parse(text: &str) -> Option<Self> {
        let (first, last) = text.split_once('-')?;
        let label = Self {
            first: first.parse().ok()?,
            last: last.parse().ok()?,
        };
        let shelf = label.first <= label.last
            && label.length().is_power_of_two()
            && u128::from(label.first) % label.length() == 0
            // "01-1" is not a name the index gives.
            && label.to_string() == text;
        shelf.then_some(label)
    }

    fn length(&self) -> u128 {
        u128::from(self.last) + 1 - u128::from(self.first)
    }

    pub fn holds(&self, created: u64) -> bool {
        (self.first..=self.last).contains(&created)
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.first, self.last)
    }
}

/// The shelves of one version of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shelves {
    capacity: usize,
    /// Each shelf with how many phrases it holds, oldest first.
    shelves: Vec<(Label, usize)>,
}

impl Shelves {
    /// The shelves of `list`, none holding more than `capacity` phrases (unless more
    /// than that were created in one microsecond, which neither store allows).
    pub fn pack(list: &PhraseList, capacity: usize) -> Self {
        let capacity = capacity.max(1);
        let mut shelves = Vec::new();
        cut(list, capacity, Label::span(0, 64), list.len(), &mut shelves);
        Self { capacity, shelves }
    }

    /// Makes these the shelves of `after`, which differs from `before` only in the
    /// phrases with the ids `changed`; returns the labels whose phrases may differ from
    /// those they held (a new shelf's among them).
    pub fn follow<'a>(
        &mut self,
        before: &PhraseList,
        after: &PhraseList,
        changed: impl IntoIterator<Item = &'a str>,
    ) -> HashSet<Label> {
        let old = std::mem::replace(self, Self::pack(after, self.capacity));
        let mut altered: HashSet<Label> = self
            .labels()
            .filter(|label| !old.labels().any(|was| was == *label))
            .collect();
        for id in changed {
            let (was, is) = (before.get(id), after.get(id));
            if was == is {
                continue;
            }
            for phrase in [was, is].into_iter().flatten() {
                altered.extend(self.label_at(phrase.created));
            }
        }
        altered
    }

    /// The labels, oldest shelf first.
    pub fn labels(&self) -> impl Iterator<Item = Label> + '_ {
        self.shelves.iter().map(|&(label, _)| label)
    }

    /// Whether `label` names one of the shelves.
    pub fn has(&self, label: Label) -> bool {
        self.labels().any(|shelf| shelf == label)
    }

    /// Where the shelf `label` sits in the list, as oldest-first places.
    pub fn places(&self, label: Label) -> Option<Range<usize>> {
        let shelf = self.shelves.iter().position(|&(l, _)| l == label)?;
        let from: usize = self.shelves[..shelf].iter().map(|&(_, size)| size).sum();
        Some(from..from + self.shelves[shelf].1)
    }

    /// The label of the shelf whose span holds `created`, if a shelf does.
    pub fn label_at(&self, created: u64) -> Option<Label> {
        let shelf = self
            .shelves
            .partition_point(|(label, _)| label.last < created);
        let (label, _) = self.shelves.get(shelf)?;
        label.holds(created).then_some(*label)
    }
}

/// The newest phrase of `list` created in `label`'s span.
pub fn newest_in(list: &PhraseList, label: Label) -> Option<&Arc<Phrase>> {
    let phrase = list.iter_from(list.newer_than(label.last)).next()?;
    label.holds(phrase.created).then_some(phrase)
}

/// Pushes the shelves of `span`, which holds `count` phrases of `list`, oldest first.
fn cut(
    list: &PhraseList,
    capacity: usize,
    span: Label,
    count: usize,
    shelves: &mut Vec<(Label, usize)>,
) {
    if count == 0 {
        return;
    }
    if count <= capacity || span.length() == 1 {
        shelves.push((span, count));
        return;
    }
    let bits = span.length().trailing_zeros() - 1;
    let older = Label::span(span.first, bits);
    let newer = Label::span(older.last + 1, bits);
    let in_older = created_from(list, older.first) - created_from(list, newer.first);
    cut(list, capacity, older, in_older, shelves);
    cut(list, capacity, newer, count - in_older, shelves);
}

/// How many phrases of `list` were created at `created` or later.
fn created_from(list: &PhraseList, created: u64) -> usize {
    match created.checked_sub(1) {
        Some(before) => list.newer_than(before),
        None => list.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phrase(created: u64, id: &str) -> Phrase {
        Phrase {
            id: id.into(),
            word: id.to_uppercase(),
            name: "n".into(),
            created,
            edited: 0,
        }
    }

    fn label(first: u64, last: u64) -> Label {
        Label { first, last }
    }

    /// Each shelf's ids, by label, read from the list through `places`.
    fn contents(shelves: &Shelves, list: &PhraseList) -> Vec<(Label, Vec<String>)> {
        let mut oldest_first: Vec<String> = list.iter().map(|p| p.id.clone()).collect();
        oldest_first.reverse();
        shelves
            .labels()
            .map(|label| (label, oldest_first[shelves.places(label).unwrap()].to_vec()))
            .collect()
    }

    /// Every phrase on the shelf whose span holds its time, no shelf past capacity (but
    /// one microsecond's) or empty.
    fn check(shelves: &Shelves, list: &PhraseList) {
        let total: usize = shelves.shelves.iter().map(|&(_, size)| size).sum();
        assert_eq!(total, list.len(), "{shelves:?}");
        for (label, ids) in contents(shelves, list) {
            assert!(
                ids.len() <= shelves.capacity || label.first == label.last,
                "{label}"
            );
            assert!(!ids.is_empty(), "{shelves:?}");
            for id in ids {
                assert!(
                    label.holds(list.get(&id).unwrap().created),
                    "{id} in {label}"
                );
            }
            assert_eq!(Label::parse(&label.to_string()), Some(label));
        }
    }

    fn numbered(times: impl IntoIterator<Item = u64>) -> PhraseList {
        PhraseList::from_phrases(
            times
                .into_iter()
                .map(|t| phrase(t, &format!("p{t}")))
                .collect(),
        )
    }

    #[test]
    fn time_is_halved_until_each_span_holds_at_most_capacity() {
        let list = numbered(0..10);
        let shelves = Shelves::pack(&list, 4);
        let labels: Vec<Label> = shelves.labels().collect();
        assert_eq!(labels, [label(0, 3), label(4, 7), label(8, 15)]);
        assert_eq!(shelves.places(label(4, 7)), Some(4..8));
        assert_eq!(shelves.places(label(8, 15)), Some(8..10));
        assert_eq!(shelves.places(label(16, 31)), None);
        assert_eq!(shelves.label_at(9), Some(label(8, 15)));
        assert_eq!(shelves.label_at(16), None);
        check(&shelves, &list);

        let few = Shelves::pack(&numbered([5, u64::MAX]), 4);
        assert_eq!(few.labels().collect::<Vec<_>>(), [label(0, u64::MAX)]);
        assert_eq!(Shelves::pack(&PhraseList::default(), 4).labels().count(), 0);
        // More in one microsecond than a shelf holds: one shelf all the same.
        let crowded =
            PhraseList::from_phrases((0..6).map(|i| phrase(7, &format!("c{i}"))).collect());
        assert_eq!(
            Shelves::pack(&crowded, 4).labels().collect::<Vec<_>>(),
            [label(7, 7)]
        );
    }

    #[test]
    fn an_addition_alters_the_newest_shelf_and_a_removal_its_own() {
        let mut list = numbered(0..10);
        let mut shelves = Shelves::pack(&list, 4);
        let before = list.clone();
        list.upsert(phrase(10, "p10"));
        let altered = shelves.follow(&before, &list, ["p10"]);
        assert_eq!(altered, HashSet::from([label(8, 15)]));

        let before = list.clone();
        list.remove("p1");
        assert_eq!(
            shelves.follow(&before, &list, ["p1"]),
            HashSet::from([label(0, 3)])
        );
        assert_eq!(
            shelves.places(label(4, 7)),
            Some(3..7),
            "4-7 holds what it held"
        );

        // Past capacity, the newest span is cut in two, both named anew.
        let before = list.clone();
        for t in 11..14 {
            list.upsert(phrase(t, &format!("p{t}")));
        }
        let altered = shelves.follow(&before, &list, ["p11", "p12", "p13"]);
        assert_eq!(altered, HashSet::from([label(8, 11), label(12, 15)]));
        assert!(!shelves.has(label(8, 15)));
        check(&shelves, &list);
    }

    /// Random additions (new and late), replacements and removals, a delta at a time:
    /// the shelves are always those of the list as it is, and a label not named as
    /// altered holds exactly what it held.
    #[test]
    fn the_shelves_are_the_lists_alone_and_changes_alter_only_those_they_name() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % below
        };
        for capacity in [1, 2, 3, 5, 8] {
            let mut list = PhraseList::default();
            let mut shelves = Shelves::pack(&list, capacity);
            let mut clock = 1_000;
            for _ in 0..400 {
                let before = list.clone();
                let mut changed = Vec::new();
                for _ in 0..=next(4) {
                    let ids: Vec<String> = list.iter().map(|p| p.id.clone()).collect();
                    match next(10) {
                        0..=4 => {
                            clock += 1 + next(3);
                            list.upsert(phrase(clock, &format!("n{clock}")));
                            changed.push(format!("n{clock}"));
                        }
                        5 => {
                            let late = next(clock);
                            list.upsert(phrase(late, &format!("l{late}")));
                            changed.push(format!("l{late}"));
                        }
                        6 if !ids.is_empty() => {
                            let id = &ids[next(ids.len() as u64) as usize];
                            let old = list.get(id).unwrap();
                            let renamed = Phrase {
                                name: "other".into(),
                                ..(**old).clone()
                            };
                            list.upsert(renamed);
                            changed.push(id.clone());
                        }
                        _ if !ids.is_empty() => {
                            let id = &ids[next(ids.len() as u64) as usize];
                            list.remove(id);
                            changed.push(id.clone());
                        }
                        _ => {}
                    }
                }
                let held = contents(&shelves, &before);
                let altered = shelves.follow(&before, &list, changed.iter().map(String::as_str));
                assert_eq!(shelves, Shelves::pack(&list, capacity));
                check(&shelves, &list);
                for (label, ids) in contents(&shelves, &list) {
                    match held.iter().find(|(l, _)| *l == label) {
                        Some((_, was)) if !altered.contains(&label) => {
                            assert_eq!(&ids, was, "{label} changed unannounced");
                        }
                        None => assert!(altered.contains(&label), "new label {label}"),
                        Some(_) => {}
                    }
                }
            }
        }
    }

    #[test]
    fn only_spans_a_shelf_could_be_are_labels() {
        assert_eq!(Label::parse("8-15"), Some(label(8, 15)));
        assert_eq!(Label::parse("7-7"), Some(label(7, 7)));
        assert_eq!(
            Label::parse("0-18446744073709551615"),
            Some(label(0, u64::MAX))
        );
        for bad in [
            "8-14",
            "4-11",
            "9-8",
            "08-15",
            "8-015",
            "+8-15",
            "8",
            "8-15-1",
            "-1-0",
            "0-18446744073709551616",
        ] {
            assert_eq!(Label::parse(bad), None, "{bad}");
        }
    }
}
