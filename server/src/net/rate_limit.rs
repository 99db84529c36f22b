//! Requests per client address: a token bucket each (GCRA, `governor`), so one client
//! cannot take a replica's render capacity with `?check=` pages. Memory stays bounded
//! whatever the number of addresses: a bucket that has refilled is indistinguishable
//! from a new one, so once the table doubles it keeps only the addresses seen in the
//! last `burst / rate` seconds (5 s by default), and an IPv6 client counts by its /64
//! (what one subscriber is given, so a client cannot make up new keys).

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};

/// Requests between looks at the table's size (a look walks its shards).
const LOOK_EVERY: usize = 1024;
/// The table is tidied when it holds this many addresses, or twice what it held after
/// the last tidy, or (so that it shrinks after a burst of addresses) once this long
/// has passed since the last tidy. Only requests tidy it: an idle host does nothing.
const TIDY_FROM: usize = 10_000;
const TIDY_EVERY: Duration = Duration::from_secs(10);

/// The configured rate: requests a second, and how many may come at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub per_second: NonZeroU32,
    pub burst: NonZeroU32,
}

/// The limit, shared by every request.
pub struct RateLimit {
    limiter: Option<DefaultKeyedRateLimiter<IpAddr>>,
    clock: DefaultClock,
    requests: AtomicUsize,
    /// Size at which the table is tidied next.
    tidy_at: AtomicUsize,
    /// When it was last tidied, in milliseconds after `started`.
    tidied_ms: AtomicU64,
    started: std::time::Instant,
    tidy_every: Duration,
}

impl std::fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimit")
            .field("on", &self.limiter.is_some())
            .finish()
    }
}

impl RateLimit {
    /// No limit when `rate` is `None`.
    pub fn new(rate: Option<Rate>) -> Self {
        let limiter = rate.map(|rate| {
            let quota = Quota::per_second(rate.per_second).allow_burst(rate.burst);
            DefaultKeyedRateLimiter::keyed(quota)
        });
        Self {
            limiter,
            clock: DefaultClock::default(),
            requests: AtomicUsize::new(0),
            tidy_at: AtomicUsize::new(TIDY_FROM),
            tidied_ms: AtomicU64::new(0),
            started: std::time::Instant::now(),
            tidy_every: TIDY_EVERY,
        }
    }

    /// `Ok` when `client` may make a request now, else how long until it may.
    pub fn check(&self, client: IpAddr) -> Result<(), Duration> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        let outcome = limiter.check_key(&crate::net::client::subscriber(client));
        if self
            .requests
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(LOOK_EVERY)
        {
            self.tidy(limiter);
        }
        outcome.map_err(|not_until| not_until.wait_time_from(self.clock.now()))
    }

    fn tidy(&self, limiter: &DefaultKeyedRateLimiter<IpAddr>) {
        let now_ms = self.started.elapsed().as_millis() as u64;
        let due = now_ms.saturating_sub(self.tidied_ms.load(Ordering::Relaxed))
            >= self.tidy_every.as_millis() as u64;
        if !due && limiter.len() < self.tidy_at.load(Ordering::Relaxed) {
            return;
        }
        self.tidied_ms.store(now_ms, Ordering::Relaxed);
        limiter.retain_recent();
        limiter.shrink_to_fit();
        let left = limiter.len();
        self.tidy_at
            .store((left * 2).max(TIDY_FROM), Ordering::Relaxed);
    }

    /// Addresses in the table, for tests and `/metrics`.
    pub fn addresses(&self) -> usize {
        self.limiter.as_ref().map_or(0, |limiter| limiter.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(per_second: u32, burst: u32) -> Option<Rate> {
        Some(Rate {
            per_second: NonZeroU32::new(per_second).unwrap(),
            burst: NonZeroU32::new(burst).unwrap(),
        })
    }

    #[test]
    fn a_client_past_its_burst_waits_and_others_do_not() {
        let limit = RateLimit::new(rate(1, 3));
        let a: IpAddr = "198.51.100.7".parse().unwrap();
        let b: IpAddr = "198.51.100.8".parse().unwrap();
        for _ in 0..3 {
            assert!(limit.check(a).is_ok());
        }
        let wait = limit.check(a).unwrap_err();
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs(1),
            "{wait:?}"
        );
        assert!(limit.check(b).is_ok());
    }

    #[test]
    fn an_ipv6_subscriber_counts_once_for_its_whole_slash_64() {
        let limit = RateLimit::new(rate(1, 2));
        let one: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let same_64: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let other_64: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert!(limit.check(one).is_ok());
        assert!(limit.check(same_64).is_ok());
        assert!(limit.check(one).is_err());
        assert!(limit.check(other_64).is_ok());
    }

    #[test]
    fn a_hundred_thousand_addresses_leave_a_bounded_table() {
        // 100 per second with a burst of 10: a bucket refills in 0.1 s.
        let mut limit = RateLimit::new(rate(100, 10));
        limit.tidy_every = Duration::from_millis(100);
        for n in 0..100_000u32 {
            let ip = IpAddr::V4((0x0a00_0000 + n).into());
            assert!(limit.check(ip).is_ok());
        }
        std::thread::sleep(Duration::from_millis(150));
        // The next look tidies it: every bucket has refilled.
        for _ in 0..LOOK_EVERY {
            let _ = limit.check("192.0.2.1".parse().unwrap());
        }
        assert!(
            limit.addresses() < TIDY_FROM,
            "{} addresses kept",
            limit.addresses()
        );
        assert!(limit.addresses() >= 1);
    }

    #[test]
    fn no_rate_means_no_limit_and_no_table() {
        let limit = RateLimit::new(None);
        for _ in 0..10_000 {
            assert!(limit.check("192.0.2.1".parse().unwrap()).is_ok());
        }
        assert_eq!(limit.addresses(), 0);
    }
}
