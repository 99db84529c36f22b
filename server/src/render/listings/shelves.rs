//! Which phrases each child sitemap holds. A child is a shelf: a stretch of the list's
//! order, oldest first, holding at most `capacity` phrases, named by a label that stays
//! with it. A change alters only the shelves its phrases fall in, so a crawler's
//! `If-None-Match` keeps matching every other child: a removal no longer moves the
//! phrases after it to another child.
//!
//! An addition past the newest phrase goes on the last shelf, or starts a new one when
//! that is full. A shelf that overflows all the same (a phrase created before newer ones,
//! arriving late) is cut: the last keeps its oldest `capacity` and passes the rest to a
//! new last shelf; any other splits in half. An emptied shelf goes. When the shelves are
//! on average less than half full they are packed again, full from the oldest; since a
//! split leaves two halves, that takes at least `capacity / 2` changes per shelf to
//! earn: O(1) per change, amortised, besides the change's own lookups.

use std::collections::HashSet;
use std::ops::Range;

use crate::feed::list::{Cursor, Phrase, PhraseList};

/// A child's name: `/sitemaps/phrases-{label}.xml`.
pub type Label = u32;

/// The shelves of one version of the list.
#[derive(Debug, Clone)]
pub struct Shelves {
    /// The most phrases a shelf holds.
    capacity: usize,
    /// The oldest place of every shelf but the first, oldest shelf first. A place is in
    /// the last shelf whose start it is not older than (`Cursor`'s order is newest first,
    /// so these descend).
    starts: Vec<Cursor>,
    /// How many phrases each shelf holds; where a shelf's phrases sit in the list is the
    /// sum of the sizes before it.
    sizes: Vec<usize>,
    /// Each shelf's name, kept while it lives.
    labels: Vec<Label>,
    /// The label the next new shelf gets.
    next_label: Label,
}

/// The shelves a change altered.
#[derive(Debug, PartialEq, Eq)]
pub enum Altered {
    /// These labels (a new shelf's among them); the others hold what they held.
    Only(HashSet<Label>),
    /// The shelves were packed again: every label names something new.
    All,
}

impl Shelves {
    /// `list` on shelves full from the oldest, labelled from 1.
    pub fn pack(list: &PhraseList, capacity: usize) -> Self {
        let capacity = capacity.max(1);
        let shelves = list.len().div_ceil(capacity).max(1);
        let starts = (1..shelves)
            .filter_map(|shelf| oldest_first(list, shelf * capacity).map(Cursor::of))
            .collect();
        let sizes = (0..shelves)
            .map(|shelf| (list.len() - shelf * capacity).min(capacity))
            .collect();
        Self {
            capacity,
            starts,
            sizes,
            labels: (1..=shelves as Label).collect(),
            next_label: shelves as Label + 1,
        }
    }

    /// Moves the shelves from `before` to `after`, which differ only in the phrases with
    /// the ids `changed` (an id twice, or one that did not change, costs nothing more).
    pub fn follow<'a>(
        &mut self,
        before: &PhraseList,
        after: &PhraseList,
        changed: impl IntoIterator<Item = &'a str>,
    ) -> Altered {
        let mut altered = HashSet::new();
        let mut added = Vec::new();
        let mut seen = HashSet::new();
        for id in changed {
            if !seen.insert(id) {
                continue;
            }
            let (old, new) = (before.get(id), after.get(id));
            if old == new {
                continue;
            }
            if let Some(old) = old {
                let shelf = self.shelf_of(&Cursor::of(old));
                self.sizes[shelf] -= 1;
                altered.insert(self.labels[shelf]);
            }
            if let Some(new) = new {
                added.push(Cursor::of(new));
            }
        }
        // Oldest first, so a run of new newest phrases fills one shelf before the next: a
        // place past the list's newest before is past every place added before it too.
        added.sort_by(|a, b| b.cmp(a));
        let newest = before.iter().next().map(|phrase| Cursor::of(phrase));
        for place in added {
            let shelf = self.shelf_of(&place);
            let last = self.sizes.len() - 1;
            let past_newest = newest.as_ref().is_none_or(|newest| place < *newest);
            if shelf == last && past_newest && self.sizes[last] >= self.capacity {
                let label = self.add_shelf(last + 1, place, 1);
                altered.insert(label);
            } else {
                self.sizes[shelf] += 1;
                altered.insert(self.labels[shelf]);
            }
        }
        self.split_overflows(after, &mut altered);
        self.drop_empty();
        if self.sizes.len() > after.len().div_ceil(self.capacity.div_ceil(2)).max(1) {
            *self = Self::pack(after, self.capacity);
            return Altered::All;
        }
        Altered::Only(altered)
    }

    /// The labels, oldest shelf first.
    pub fn labels(&self) -> &[Label] {
        &self.labels
    }

    /// Where the shelf `label` sits in the list, as oldest-first places.
    pub fn places(&self, label: Label) -> Option<Range<usize>> {
        let shelf = self.labels.iter().position(|&l| l == label)?;
        let from: usize = self.sizes[..shelf].iter().sum();
        Some(from..from + self.sizes[shelf])
    }

    /// The label of the shelf a phrase at `place` is on (or would go on).
    pub fn label_at(&self, place: &Cursor) -> Label {
        self.labels[self.shelf_of(place)]
    }

    fn shelf_of(&self, place: &Cursor) -> usize {
        self.starts.partition_point(|start| place <= start)
    }

    fn add_shelf(&mut self, at: usize, start: Cursor, size: usize) -> Label {
        let label = self.next_label;
        self.next_label += 1;
        self.starts.insert(at - 1, start);
        self.sizes.insert(at, size);
        self.labels.insert(at, label);
        label
    }

    /// Cuts each shelf past `capacity`, in `after`'s places: the last after its oldest
    /// `capacity`, where additions arrive, any other in half.
    fn split_overflows(&mut self, after: &PhraseList, altered: &mut HashSet<Label>) {
        let mut from = 0;
        let mut shelf = 0;
        while shelf < self.sizes.len() {
            let size = self.sizes[shelf];
            if size > self.capacity {
                let keep = if shelf == self.sizes.len() - 1 {
                    self.capacity
                } else {
                    (size / 2).min(self.capacity)
                };
                let Some(start) = oldest_first(after, from + keep) else {
                    break;
                };
                self.sizes[shelf] = keep;
                let label = self.add_shelf(shelf + 1, Cursor::of(start), size - keep);
                altered.insert(label);
            }
            from += self.sizes[shelf];
            shelf += 1;
        }
    }

    /// Removes the shelves left empty (all but one when the list is).
    fn drop_empty(&mut self) {
        let mut shelf = 0;
        while shelf < self.sizes.len() && self.sizes.len() > 1 {
            if self.sizes[shelf] == 0 {
                // An empty shelf's stretch joins a neighbour's, which holds what it held.
                self.starts.remove(shelf.saturating_sub(1));
                self.sizes.remove(shelf);
                self.labels.remove(shelf);
            } else {
                shelf += 1;
            }
        }
    }
}

/// The phrase at oldest-first place `place`.
fn oldest_first(list: &PhraseList, place: usize) -> Option<&Phrase> {
    let skip = list.len().checked_sub(place + 1)?;
    list.iter_from(skip).next().map(|phrase| &**phrase)
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
        }
    }

    /// Each shelf's ids, by label, read from the list through `places`.
    fn contents(shelves: &Shelves, list: &PhraseList) -> Vec<(Label, Vec<String>)> {
        let mut oldest_first: Vec<String> = list.iter().map(|p| p.id.clone()).collect();
        oldest_first.reverse();
        shelves
            .labels()
            .iter()
            .map(|&label| {
                let places = shelves.places(label).unwrap();
                (label, oldest_first[places].to_vec())
            })
            .collect()
    }

    /// Every phrase on exactly the shelf its place says, no shelf past capacity or empty.
    fn check(shelves: &Shelves, list: &PhraseList) {
        let total: usize = shelves.sizes.iter().sum();
        assert_eq!(total, list.len(), "{shelves:?}");
        for (label, ids) in contents(shelves, list) {
            let shelf = shelves.labels.iter().position(|&l| l == label).unwrap();
            assert!(ids.len() <= shelves.capacity, "{shelves:?}");
            assert!(!ids.is_empty() || list.is_empty(), "{shelves:?}");
            for id in ids {
                let place = Cursor::of(list.get(&id).unwrap());
                assert_eq!(shelves.shelf_of(&place), shelf, "{id} in {shelves:?}");
            }
        }
        let most = list.len().div_ceil(shelves.capacity.div_ceil(2)).max(1);
        assert!(shelves.sizes.len() <= most, "{shelves:?}");
    }

    #[test]
    fn packed_full_from_the_oldest() {
        let list = PhraseList::from_phrases((0..10).map(|i| phrase(i, &format!("p{i}"))).collect());
        let shelves = Shelves::pack(&list, 4);
        assert_eq!(shelves.labels(), [1, 2, 3]);
        assert_eq!(shelves.places(1), Some(0..4));
        assert_eq!(shelves.places(3), Some(8..10));
        assert_eq!(shelves.places(4), None);
        check(&shelves, &list);
        let empty = Shelves::pack(&PhraseList::default(), 4);
        assert_eq!(empty.places(1), Some(0..0));
    }

    #[test]
    fn an_addition_fills_the_last_shelf_then_starts_one_and_a_removal_alters_only_its_own() {
        let mut list =
            PhraseList::from_phrases((0..8).map(|i| phrase(i, &format!("p{i}"))).collect());
        let mut shelves = Shelves::pack(&list, 4);
        let before = list.clone();
        list.upsert(phrase(8, "p8"));
        let altered = shelves.follow(&before, &list, ["p8"]);
        assert_eq!(altered, Altered::Only(HashSet::from([3])));
        assert_eq!(shelves.places(2), Some(4..8));
        assert_eq!(shelves.places(3), Some(8..9));

        let before = list.clone();
        list.remove("p1");
        assert_eq!(
            shelves.follow(&before, &list, ["p1"]),
            Altered::Only(HashSet::from([1]))
        );
        assert_eq!(shelves.places(2), Some(3..7), "shelf 2 holds what it held");
        check(&shelves, &list);
    }

    #[test]
    fn a_late_phrase_in_a_full_shelf_splits_it_and_an_emptied_shelf_goes() {
        let mut list =
            PhraseList::from_phrases((0..8).map(|i| phrase(i * 10, &format!("p{i}"))).collect());
        let mut shelves = Shelves::pack(&list, 4);
        let before = list.clone();
        list.upsert(phrase(15, "late"));
        let altered = shelves.follow(&before, &list, ["late"]);
        assert_eq!(altered, Altered::Only(HashSet::from([1, 3])));
        assert_eq!(shelves.labels(), [1, 3, 2]);
        check(&shelves, &list);

        assert_eq!(shelves.places(3), Some(2..5), "the older half kept by 1");

        let before = list.clone();
        for id in ["late", "p2", "p3"] {
            list.remove(id);
        }
        assert_eq!(
            shelves.follow(&before, &list, ["late", "p2", "p3"]),
            Altered::Only(HashSet::from([3]))
        );
        assert_eq!(shelves.labels(), [1, 2]);
        assert_eq!(shelves.places(2), Some(2..6));
        check(&shelves, &list);
    }

    /// Random additions (new and late), replacements and removals, a delta at a time,
    /// against what a shelf must keep: every unaltered label holds exactly what it held.
    #[test]
    fn random_changes_alter_only_the_shelves_they_name() {
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
                            clock += 1;
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
                check(&shelves, &list);
                if let Altered::Only(altered) = altered {
                    let now = contents(&shelves, &list);
                    for (label, ids) in &held {
                        if !altered.contains(label)
                            && let Some((_, kept)) = now.iter().find(|(l, _)| l == label)
                        {
                            assert_eq!(kept, ids, "label {label} changed unannounced");
                        }
                    }
                    for (label, _) in &now {
                        let is_new = !held.iter().any(|(l, _)| l == label);
                        assert!(!is_new || altered.contains(label), "new label {label}");
                    }
                }
            }
        }
    }
}
