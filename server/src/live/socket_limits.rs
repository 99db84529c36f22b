//! How many live sockets there are, in all and per client address, under their caps.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The caps on live sockets, as configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocketCaps {
    /// Live WebSockets the host holds at most.
    pub max: usize,
    /// Live WebSockets per client address; 0 means no limit.
    pub max_per_ip: usize,
}

/// How many live sockets there are, in all and per client address, with the caps.
#[derive(Debug)]
pub struct SocketLimits {
    max: usize,
    /// 0 means no per-address limit.
    max_per_ip: usize,
    open: AtomicUsize,
    per_ip: Mutex<HashMap<IpAddr, usize>>,
}

/// Which cap a socket would pass: the host's (its capacity) or its address's (the
/// client's own doing, answered as a rate limit is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Full {
    Host,
    Address,
}

/// One socket's place under the caps, given back when the socket ends.
pub struct SocketPermit {
    limits: Arc<SocketLimits>,
    ip: Option<IpAddr>,
}

impl SocketLimits {
    pub fn new(caps: SocketCaps) -> Arc<Self> {
        Arc::new(Self {
            max: caps.max,
            max_per_ip: caps.max_per_ip,
            open: AtomicUsize::new(0),
            per_ip: Mutex::default(),
        })
    }

    /// Live sockets now.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    pub fn try_acquire(self: &Arc<Self>, ip: Option<IpAddr>) -> Result<SocketPermit, Full> {
        let taken = self
            .open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                (open < self.max).then_some(open + 1)
            });
        if taken.is_err() {
            return Err(Full::Host);
        }
        // From here the permit's Drop gives back what was taken.
        let mut permit = SocketPermit {
            limits: self.clone(),
            ip: None,
        };
        if let (Some(ip), true) = (ip.map(crate::net::client::subscriber), self.max_per_ip > 0) {
            let mut per_ip = self.per_ip.lock().unwrap_or_else(|e| e.into_inner());
            let count = per_ip.entry(ip).or_default();
            if *count >= self.max_per_ip {
                return Err(Full::Address);
            }
            *count += 1;
            permit.ip = Some(ip);
        }
        Ok(permit)
    }
}

impl Drop for SocketPermit {
    fn drop(&mut self) {
        self.limits.open.fetch_sub(1, Ordering::AcqRel);
        if let Some(ip) = self.ip {
            let mut per_ip = self.limits.per_ip.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(count) = per_ip.get_mut(&ip) {
                *count -= 1;
                if *count == 0 {
                    per_ip.remove(&ip);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_subscriber_counts_once_for_its_whole_slash_64() {
        let limits = SocketLimits::new(SocketCaps {
            max: 100,
            max_per_ip: 2,
        });
        let ip = |text: &str| Some(text.parse::<IpAddr>().unwrap());
        let held: Vec<_> = ["2001:db8:1:2::1", "2001:db8:1:2:ffff::9"]
            .into_iter()
            .map(|text| limits.try_acquire(ip(text)).unwrap())
            .collect();
        assert_eq!(
            limits.try_acquire(ip("2001:db8:1:2::abcd")).err(),
            Some(Full::Address)
        );
        assert!(limits.try_acquire(ip("2001:db8:1:3::1")).is_ok());
        drop(held);
        assert!(limits.try_acquire(ip("2001:db8:1:2::abcd")).is_ok());
    }
}
