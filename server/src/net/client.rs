//! Who a request comes from. Facing the internet, the TCP peer. Behind a load balancer,
//! every peer is the proxy, so when the peer is a trusted proxy the client is the
//! rightmost address of `X-Forwarded-For` (or `Forwarded: for=`) that is not itself a
//! trusted proxy: each proxy appends the address it saw, so entries to the left of the
//! last untrusted one may be made up by the client. From any other peer the headers are
//! ignored, so they cannot be forged.

use std::net::{IpAddr, SocketAddr};

use axum::http::HeaderMap;
use axum::http::header::FORWARDED;
use ipnet::IpNet;

/// The client's address, as the request's extension: set by the accept loop for every
/// request, read by the per-address caps, the rate limit and the logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

/// How many forwarded entries are read from the right; a longer chain is no client's.
const MAX_HOPS: usize = 32;

/// The addresses and ranges of the proxies in front of the host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    nets: Vec<IpNet>,
}

impl TrustedProxies {
    /// Reads addresses (`10.0.0.7`, `::1`) and ranges (`10.0.0.0/8`, `fd00::/8`).
    pub fn parse(entries: &[String]) -> Result<Self, String> {
        Ok(Self {
            nets: parse_nets(entries)?,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.nets.is_empty()
    }

    /// The ranges, as configured, for `config check`.
    pub fn describe(&self) -> String {
        if self.nets.is_empty() {
            return "none (forwarded headers are ignored)".into();
        }
        let nets: Vec<String> = self.nets.iter().map(ToString::to_string).collect();
        nets.join(", ")
    }

    /// Whether requests from `peer` name their client in forwarded headers.
    pub fn trusts_peer(&self, peer: IpAddr) -> bool {
        !self.nets.is_empty() && self.trusts(canonical(peer))
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.nets.iter().any(|net| net.contains(&ip))
    }

    /// The client behind `peer`, as the forwarded headers of a trusted peer say.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = canonical(peer);
        if self.nets.is_empty() || !self.trusts(peer) {
            return peer;
        }
        let chain = forwarded_chain(headers);
        for hop in chain.iter().rev().take(MAX_HOPS) {
            match hop {
                Some(ip) if self.trusts(*ip) => {}
                Some(ip) => return *ip,
                // Past an entry nobody can read, nothing further left is trustworthy.
                None => return peer,
            }
        }
        // Every hop is a proxy of ours (or there are none): the leftmost one it is.
        match chain.first() {
            Some(Some(ip)) if chain.len() <= MAX_HOPS => *ip,
            _ => peer,
        }
    }
}

/// Addresses (`10.0.0.7`, `::1`) and ranges (`10.0.0.0/8`, `fd00::/8`); blank entries
/// are skipped.
fn parse_nets(entries: &[String]) -> Result<Vec<IpNet>, String> {
    let mut nets = Vec::with_capacity(entries.len());
    for entry in entries.iter().map(|e| e.trim()).filter(|e| !e.is_empty()) {
        let net = match entry.parse::<IpNet>() {
            // `10.0.0.1/8` is most likely one proxy's address under a mistaken mask:
            // taken as the /8 it would trust every address there to name the client.
            Ok(net) if net.trunc() != net => {
                let (address, whole) = (net.addr(), net.max_prefix_len());
                return Err(format!(
                    "{entry:?} has bits set past its prefix: the address alone is {address}/{whole}, the range {}",
                    net.trunc()
                ));
            }
            Ok(net) => net,
            Err(_) => match entry.parse::<IpAddr>() {
                Ok(ip) => IpNet::from(canonical(ip)),
                Err(_) => {
                    return Err(format!(
                        "{entry:?} is neither an address nor a range such as 10.0.0.0/8"
                    ));
                }
            },
        };
        nets.push(net);
    }
    Ok(nets)
}

/// Who may read `/metrics`. Prometheus scrapes each replica directly from inside the
/// network; a visitor comes from outside it, or through the load balancer, whose
/// forwarded headers say so even when it is not configured as trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetricsReaders {
    Any,
    Nets(Vec<IpNet>),
}

impl MetricsReaders {
    /// Loopback and the private networks (RFC 1918, unique local IPv6).
    pub const PRIVATE: [&str; 6] = [
        "127.0.0.0/8",
        "::1/128",
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "fc00::/7",
    ];

    /// `any`, or addresses and ranges as [`TrustedProxies::parse`] reads them; at least one.
    pub fn parse(entries: &[String]) -> Result<Self, String> {
        let named: Vec<&str> = entries
            .iter()
            .map(|entry| entry.trim())
            .filter(|entry| !entry.is_empty())
            .collect();
        match named.as_slice() {
            [] => Err("name at least one address or range, or any".into()),
            ["any"] => Ok(Self::Any),
            _ if named.contains(&"any") => Err("any stands alone".into()),
            _ => parse_nets(entries).map(Self::Nets),
        }
    }

    pub fn private() -> Self {
        Self::Nets(
            Self::PRIVATE
                .iter()
                .map(|net| net.parse().expect("a range"))
                .collect(),
        )
    }

    /// Whether `client` may read the metrics with a request of these `headers`.
    pub fn allow(&self, client: IpAddr, headers: &HeaderMap) -> bool {
        match self {
            Self::Any => true,
            Self::Nets(nets) => {
                let proxied = ["x-forwarded-for", "forwarded", "x-real-ip"]
                    .iter()
                    .any(|name| headers.contains_key(*name));
                let client = canonical(client);
                !proxied && nets.iter().any(|net| net.contains(&client))
            }
        }
    }

    /// The readers, as configured, for `config check`.
    pub fn describe(&self) -> String {
        match self {
            Self::Any => "any".into(),
            Self::Nets(nets) => {
                let nets: Vec<String> = nets.iter().map(ToString::to_string).collect();
                format!("{}, never through a proxy", nets.join(", "))
            }
        }
    }
}

/// `X-Forwarded-For` when present (every line, in order), else the `for=` of each
/// `Forwarded` element; an entry that is not an address is `None`.
fn forwarded_chain(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let xff: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .collect();
    if !xff.is_empty() {
        return xff
            .iter()
            .flat_map(|line| line.split(','))
            .map(|entry| parse_node(entry.trim()))
            .collect();
    }
    headers
        .get_all(FORWARDED)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|line| line.split(','))
        .map(|element| {
            element
                .split(';')
                .filter_map(|pair| pair.split_once('='))
                .find(|(key, _)| key.trim().eq_ignore_ascii_case("for"))
                .and_then(|(_, value)| parse_node(value.trim().trim_matches('"')))
        })
        .collect()
}

/// An address as proxies write it: `1.2.3.4`, `1.2.3.4:80`, `::1`, `[::1]:80`.
fn parse_node(text: &str) -> Option<IpAddr> {
    let ip = text
        .parse::<IpAddr>()
        .ok()
        .or_else(|| text.parse::<SocketAddr>().ok().map(|s| s.ip()))
        .or_else(|| {
            text.strip_prefix('[')
                .and_then(|t| t.strip_suffix(']'))
                .and_then(|t| t.parse().ok())
        })?;
    Some(canonical(ip))
}

/// `::ffff:1.2.3.4` is `1.2.3.4`: one client, one key, whichever way it arrived.
fn canonical(ip: IpAddr) -> IpAddr {
    ip.to_canonical()
}

/// What one client is counted as by the limits on it: an IPv4 address, or an IPv6
/// address's /64, which one subscriber is given whole (it could take a new address of
/// it for every connection).
pub fn subscriber(ip: IpAddr) -> IpAddr {
    match canonical(ip) {
        IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, value.parse().unwrap());
        }
        map
    }

    fn proxies(list: &[&str]) -> TrustedProxies {
        TrustedProxies::parse(&list.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn readers(list: &[&str]) -> Result<MetricsReaders, String> {
        MetricsReaders::parse(&list.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn metrics_are_read_from_inside_the_network_and_never_through_a_proxy() {
        let private = MetricsReaders::private();
        let none = HeaderMap::new();
        for inside in [
            "127.0.0.1",
            "::1",
            "10.1.2.3",
            "172.31.255.255",
            "192.168.0.9",
            "fd00::7",
            "::ffff:10.0.0.1",
        ] {
            assert!(private.allow(ip(inside), &none), "{inside}");
        }
        for outside in [
            "8.8.8.8",
            "172.32.0.1",
            "169.254.1.1",
            "100.64.0.1",
            "2001:db8::1",
            "fe80::1",
        ] {
            assert!(!private.allow(ip(outside), &none), "{outside}");
        }
        for proxied in [
            headers(&[("x-forwarded-for", "203.0.113.9")]),
            headers(&[("forwarded", "for=203.0.113.9")]),
            headers(&[("x-real-ip", "203.0.113.9")]),
        ] {
            assert!(!private.allow(ip("10.0.0.2"), &proxied), "{proxied:?}");
        }
        let any = readers(&["any"]).unwrap();
        assert!(any.allow(ip("8.8.8.8"), &headers(&[("x-forwarded-for", "8.8.8.8")])));
        let own = readers(&["203.0.113.0/24", " "]).unwrap();
        assert!(own.allow(ip("203.0.113.77"), &none));
        assert!(!own.allow(ip("127.0.0.1"), &none));
    }

    #[test]
    fn metrics_readers_that_make_no_sense_are_refused() {
        assert_eq!(
            readers(&[]).unwrap_err(),
            "name at least one address or range, or any"
        );
        assert_eq!(
            readers(&[" ", ""]).unwrap_err(),
            "name at least one address or range, or any"
        );
        assert_eq!(
            readers(&["any", "10.0.0.0/8"]).unwrap_err(),
            "any stands alone"
        );
        assert!(
            readers(&["everyone"])
                .unwrap_err()
                .contains("\"everyone\" is neither")
        );
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_forwards() {
        let trusted = proxies(&["10.0.0.0/8"]);
        let forged = headers(&[("x-forwarded-for", "1.2.3.4"), ("forwarded", "for=5.6.7.8")]);
        assert_eq!(
            trusted.client(ip("203.0.113.9"), &forged),
            ip("203.0.113.9")
        );
        assert_eq!(
            TrustedProxies::default().client(ip("10.0.0.1"), &forged),
            ip("10.0.0.1")
        );
    }

    #[test]
    fn behind_a_chain_the_rightmost_untrusted_entry_is_the_client() {
        let trusted = proxies(&["10.0.0.0/8", "192.168.1.1"]);
        // The client made up the leftmost entry; our two proxies appended the rest.
        let chain = headers(&[("x-forwarded-for", "6.6.6.6, 198.51.100.7, 192.168.1.1")]);
        assert_eq!(trusted.client(ip("10.1.2.3"), &chain), ip("198.51.100.7"));
        // Split over two header lines, as some proxies do.
        let lines = headers(&[
            ("x-forwarded-for", "6.6.6.6"),
            ("x-forwarded-for", "198.51.100.7, 192.168.1.1"),
        ]);
        assert_eq!(trusted.client(ip("10.1.2.3"), &lines), ip("198.51.100.7"));
    }

    #[test]
    fn ipv6_ports_and_mapped_addresses_name_one_client() {
        let trusted = proxies(&["::1", "127.0.0.1"]);
        let mapped = headers(&[("x-forwarded-for", "::ffff:198.51.100.7")]);
        assert_eq!(
            trusted.client(ip("::ffff:127.0.0.1"), &mapped),
            ip("198.51.100.7")
        );
        let with_port = headers(&[("x-forwarded-for", "[2001:db8::1]:4711")]);
        assert_eq!(trusted.client(ip("::1"), &with_port), ip("2001:db8::1"));
        let forwarded = headers(&[(
            "forwarded",
            "for=192.0.2.60;proto=http;by=203.0.113.43, for=\"[2001:db8:cafe::17]:4711\"",
        )]);
        assert_eq!(
            trusted.client(ip("127.0.0.1"), &forwarded),
            ip("2001:db8:cafe::17")
        );
    }

    #[test]
    fn an_unreadable_entry_stops_the_walk_at_the_proxy() {
        let trusted = proxies(&["10.0.0.0/8"]);
        let garbage = headers(&[("x-forwarded-for", "198.51.100.7, not-an-address")]);
        assert_eq!(trusted.client(ip("10.0.0.1"), &garbage), ip("10.0.0.1"));
        let hidden = headers(&[("forwarded", "for=_hidden")]);
        assert_eq!(trusted.client(ip("10.0.0.1"), &hidden), ip("10.0.0.1"));
        assert_eq!(
            trusted.client(ip("10.0.0.1"), &HeaderMap::new()),
            ip("10.0.0.1")
        );
    }

    #[test]
    fn a_chain_of_our_own_proxies_names_its_leftmost() {
        let trusted = proxies(&["10.0.0.0/8"]);
        let ours = headers(&[("x-forwarded-for", "10.9.9.9, 10.0.0.2")]);
        assert_eq!(trusted.client(ip("10.0.0.1"), &ours), ip("10.9.9.9"));
    }

    #[test]
    fn bad_entries_are_named() {
        let error = TrustedProxies::parse(&["10.0.0.0/33".into()]).unwrap_err();
        assert!(error.contains("10.0.0.0/33"), "{error}");
        assert!(TrustedProxies::parse(&["proxy.internal".into()]).is_err());
    }

    #[test]
    fn a_range_with_an_address_in_it_is_refused_not_widened() {
        let error = TrustedProxies::parse(&["10.0.0.1/8".into()]).unwrap_err();
        assert!(
            error.contains("10.0.0.1/32") && error.contains("10.0.0.0/8"),
            "{error}"
        );
        let error = MetricsReaders::parse(&["fd00::1/8".into()]).unwrap_err();
        assert!(error.contains("fd00::1/128"), "{error}");
        assert!(TrustedProxies::parse(&["10.0.0.0/8".into(), "10.1.2.3/32".into()]).is_ok());
    }
}
