//! Every TCP connection, from its accept to its close.
//!
//! Connections are held to a budget well under the open-file limit (which
//! [`crate::net::listener`] raises at start); past it, a connection gets a short-lived place
//! in a small reserve where only the probes are served (everything else gets 503), so `/healthz` answers however many
//! sockets are open. One client address (an IPv6 one by its /64; a trusted proxy's
//! connections are not counted) holds at most its share; past it a connection is closed
//! unanswered. Each connection has deadlines: it must send a request within the
//! request timeout of being accepted or of its last response, and a write the peer
//! does not take within that timeout ends it.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use hyper::body::{Frame, SizeHint};
use prometheus::IntCounter;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};
use tokio_util::sync::CancellationToken;

use crate::net::client::subscriber;

/// Connections past the budget that may still be answered at once (the probes, and a
/// 503 for everyone else). When it is full the oldest place is taken back.
pub const RESERVE: usize = 64;
/// How long a connection in the reserve may live: probes ask at once.
pub const RESERVE_DEADLINE: Duration = Duration::from_secs(2);

/// The connection budget for `configured` (None: as many as the limit allows): at most
/// nine tenths of the open-file limit less the reserve, so files, the store and the
/// runtime always have descriptors left.
pub fn budget(configured: Option<usize>) -> usize {
    use rustix::process::{Resource, getrlimit};
    let limit = getrlimit(Resource::Nofile).current;
    let ceiling = limit.map_or(usize::MAX, |limit| {
        (usize::try_from(limit / 10 * 9).unwrap_or(usize::MAX))
            .saturating_sub(RESERVE)
            .max(1)
    });
    match configured {
        Some(wanted) if wanted > ceiling => {
            tracing::warn!(
                wanted,
                budget = ceiling,
                "max_connections is above what the open-file limit allows; using the lower figure"
            );
            ceiling
        }
        Some(wanted) => wanted,
        None => {
            if ceiling < LOW_BUDGET {
                tracing::warn!(
                    budget = ceiling,
                    "few connections at once: the open-file limit is low; raise it (ulimit -n, or the container's nofile) to serve more"
                );
            }
            ceiling
        }
    }
}

/// A budget the open-file limit holds under this is said at start as a warning.
const LOW_BUDGET: usize = 1000;

/// The open connections under the budget and in the reserve. What becomes of them is
/// counted in [`crate::metrics::Metrics`] by the accept loop and by [`Guarded`].
#[derive(Debug)]
pub struct Connections {
    /// Connections served in full at once.
    budget: usize,
    /// Connections under the budget now (WebSockets included).
    open: AtomicUsize,
    /// The reserve's places, oldest first, each with the token that closes it.
    reserve: Mutex<VecDeque<(u64, CancellationToken)>>,
    /// The id the next reserve place gets.
    next_id: AtomicU64,
    /// Connections one client may hold at once (0: no limit), and how many each holds.
    per_client: usize,
    by_client: Mutex<HashMap<IpAddr, usize>>,
}

/// Where an accepted connection is served.
pub enum Admission {
    /// Under the budget: the whole site.
    Budget(Place),
    /// Past it: the probes only, until the deadline or until the token is cancelled.
    Reserve(Place, CancellationToken),
    /// Its client holds as many connections as one may: closed unanswered.
    Refused,
}

/// A connection's place, given back when the socket closes (which for a WebSocket is
/// long after its HTTP request ended).
pub struct Place {
    /// Where the place is given back.
    connections: Arc<Connections>,
    /// The reserve place's id; None for a place under the budget.
    reserve_id: Option<u64>,
    /// The client it is counted against, if any.
    client: Option<IpAddr>,
}

impl Connections {
    /// `per_client`: connections one client address may hold at once; 0 for no limit.
    pub fn new(budget: usize, per_client: usize) -> Arc<Self> {
        Arc::new(Self {
            budget,
            open: AtomicUsize::new(0),
            reserve: Mutex::default(),
            next_id: AtomicU64::new(0),
            per_client,
            by_client: Mutex::default(),
        })
    }

    /// Connections served in full at once.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Open connections, under the budget and in the reserve.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Relaxed) + self.lock_reserve().len()
    }

    /// Takes a place for a new connection from `client` (None: not counted, such as a
    /// trusted proxy's, which carries many clients): refused when that client holds its
    /// share already, else under the budget if there is room, else in the reserve,
    /// closing the reserve's oldest connection when it is full. One client cannot take
    /// the whole budget and leave every other visitor a 503.
    pub fn admit(self: &Arc<Self>, client: Option<IpAddr>) -> Admission {
        let client = client.filter(|_| self.per_client > 0).map(subscriber);
        if let Some(client) = client {
            let mut by_client = self.lock_by_client();
            let held = by_client.entry(client).or_default();
            if *held >= self.per_client {
                return Admission::Refused;
            }
            *held += 1;
        }
        let under = self
            .open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                (open < self.budget).then_some(open + 1)
            });
        if under.is_ok() {
            return Admission::Budget(Place {
                connections: self.clone(),
                reserve_id: None,
                client,
            });
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let token = CancellationToken::new();
        let mut reserve = self.lock_reserve();
        if reserve.len() >= RESERVE
            && let Some((_, oldest)) = reserve.pop_front()
        {
            oldest.cancel();
        }
        reserve.push_back((id, token.clone()));
        drop(reserve);
        Admission::Reserve(
            Place {
                connections: self.clone(),
                reserve_id: Some(id),
                client,
            },
            token,
        )
    }

    fn lock_by_client(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.by_client.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_reserve(&self) -> std::sync::MutexGuard<'_, VecDeque<(u64, CancellationToken)>> {
        self.reserve.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Some(client) = self.client {
            let mut by_client = self.connections.lock_by_client();
            if let Some(held) = by_client.get_mut(&client) {
                *held -= 1;
                if *held == 0 {
                    by_client.remove(&client);
                }
            }
        }
        match self.reserve_id {
            None => {
                self.connections.open.fetch_sub(1, Ordering::AcqRel);
            }
            Some(id) => self
                .connections
                .lock_reserve()
                .retain(|(other, _)| *other != id),
        }
    }
}

/// A connection's socket with its place and a deadline on every write: a peer that
/// takes none of what it is sent for `stall_limit` gets an error instead of holding the
/// connection (and the response's memory) for good.
pub struct Guarded<IO> {
    /// The socket.
    io: IO,
    /// Held for as long as the socket is open.
    _place: Place,
    /// How long a write may wait for the peer.
    stall_limit: Duration,
    /// Set while a write is waiting for the peer.
    stalled: Option<Pin<Box<Sleep>>>,
    /// `lastwords_connections_write_stalled_total`, counted when a write times out.
    stalls: IntCounter,
}

impl<IO> Guarded<IO> {
    pub fn new(io: IO, place: Place, stall_limit: Duration, stalls: IntCounter) -> Self {
        Self {
            io,
            _place: place,
            stall_limit,
            stalled: None,
            stalls,
        }
    }

    /// Passes a write's outcome on; a write still waiting after `stall_limit` fails.
    fn after_write<T>(
        &mut self,
        cx: &mut Context<'_>,
        outcome: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if outcome.is_ready() {
            self.stalled = None;
            return outcome;
        }
        let limit = self.stall_limit;
        let timer = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => {
                self.stalls.inc();
                Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the peer read nothing within the request timeout",
                )))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Guarded<IO> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Guarded<IO> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.io).poll_write(cx, buf);
        this.after_write(cx, outcome)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.after_write(cx, outcome)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.io).poll_flush(cx);
        this.after_write(cx, outcome)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.io).poll_shutdown(cx);
        this.after_write(cx, outcome)
    }
}

/// Whether a connection has a request in flight, and since when it has had none.
#[derive(Debug)]
pub struct Activity {
    /// When the connection was accepted: the origin of `idle_since_ms`.
    started: Instant,
    /// Requests whose response has not been sent in full.
    in_flight: AtomicUsize,
    /// Milliseconds after `started` at which the last request in flight finished.
    idle_since_ms: AtomicU64,
}

/// A request in flight, from its head to the last byte of its response body.
pub struct InFlight(Arc<Activity>);

impl Activity {
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            started: Instant::now(),
            in_flight: AtomicUsize::new(0),
            idle_since_ms: AtomicU64::new(0),
        })
    }

    pub fn begin(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(self.clone())
    }

    /// When the connection will have been idle for `limit`; None while a request is
    /// in flight.
    pub fn idle_deadline(&self, limit: Duration) -> Option<Instant> {
        if self.in_flight.load(Ordering::Acquire) > 0 {
            return None;
        }
        let since = Duration::from_millis(self.idle_since_ms.load(Ordering::Acquire));
        Some(self.started + since + limit)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let activity = &self.0;
        let now = u64::try_from(activity.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        activity.idle_since_ms.store(now, Ordering::Release);
        activity.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body that keeps its request in flight until it has been sent. Handed to
/// hyper as it is: boxing it into a `Body` again would cost an allocation a request.
pub fn tracked(body: Body, in_flight: InFlight) -> Tracked {
    Tracked {
        body: Reply::Routed(body),
        _in_flight: in_flight,
    }
}

/// The same for the fast path's bytes, sent as one frame without a box around them.
pub fn tracked_bytes(bytes: Bytes, in_flight: InFlight) -> Tracked {
    Tracked {
        body: Reply::Bytes(Some(bytes).filter(|bytes| !bytes.is_empty())),
        _in_flight: in_flight,
    }
}

pub struct Tracked {
    /// What is sent.
    body: Reply,
    /// Ends the request's time in flight when the body is dropped, sent or not.
    _in_flight: InFlight,
}

enum Reply {
    /// The router's body.
    Routed(Body),
    /// A whole body, until it is taken.
    Bytes(Option<Bytes>),
}

impl hyper::body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        match &mut self.get_mut().body {
            Reply::Routed(body) => Pin::new(body).poll_frame(cx),
            Reply::Bytes(bytes) => Poll::Ready(bytes.take().map(|bytes| Ok(Frame::data(bytes)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.body {
            Reply::Routed(body) => body.is_end_stream(),
            Reply::Bytes(bytes) => bytes.is_none(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.body {
            Reply::Routed(body) => body.size_hint(),
            Reply::Bytes(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_budget_connections_go_to_the_reserve_whose_oldest_place_is_taken_back() {
        let connections = Connections::new(2, 0);
        let under: Vec<_> = (0..2).map(|_| connections.admit(None)).collect();
        assert!(under.iter().all(|a| matches!(a, Admission::Budget(_))));
        let mut reserve: Vec<_> = (0..RESERVE + 1).map(|_| connections.admit(None)).collect();
        let Admission::Reserve(_, first) = &reserve[0] else {
            panic!("past the budget comes the reserve");
        };
        assert!(
            first.is_cancelled(),
            "the oldest reserve place is taken back"
        );
        assert_eq!(connections.open(), 2 + RESERVE);
        reserve.clear();
        drop(under);
        assert_eq!(connections.open(), 0);
    }

    #[test]
    fn one_client_holds_its_share_of_connections_and_no_more_an_ipv6_one_by_its_slash_64() {
        let connections = Connections::new(100, 3);
        let ip = |text: &str| Some(text.parse::<IpAddr>().unwrap());
        let held: Vec<_> = ["2001:db8::1", "2001:db8::2", "2001:db8::ffff:3"]
            .into_iter()
            .map(|text| connections.admit(ip(text)))
            .collect();
        assert!(held.iter().all(|a| matches!(a, Admission::Budget(_))));
        assert!(matches!(
            connections.admit(ip("2001:db8::4")),
            Admission::Refused
        ));
        // Another client, and connections not counted (a trusted proxy's), go on.
        assert!(matches!(
            connections.admit(ip("2001:db8:0:1::1")),
            Admission::Budget(_)
        ));
        assert!(matches!(connections.admit(None), Admission::Budget(_)));
        drop(held);
        assert!(matches!(
            connections.admit(ip("2001:db8::4")),
            Admission::Budget(_)
        ));
        assert!(
            connections.lock_by_client().is_empty(),
            "every place given back"
        );
    }

    #[tokio::test]
    async fn a_connection_is_idle_only_once_its_last_response_is_done() {
        let activity = Activity::new();
        let limit = Duration::from_secs(5);
        assert!(activity.idle_deadline(limit).is_some());
        let first = activity.begin();
        let second = activity.begin();
        drop(first);
        assert_eq!(activity.idle_deadline(limit), None);
        drop(second);
        assert!(activity.idle_deadline(limit).is_some());
    }
}
