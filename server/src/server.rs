//! The accept loop: each connection under the budget or in the reserve, its deadlines,
//! and a graceful stop (WebSockets closed with 1001, requests given time to finish).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::Response;
use futures_util::{Stream, StreamExt as _};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, sleep_until, timeout};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt as _;

use crate::metrics::Metrics;
use crate::net::client::{ClientAddr, TrustedProxies};
use crate::net::shared::SharedStream;
use crate::net::{front, headers};
use crate::routes::{self, FastPath};
use crate::state::AppState;

use crate::net::connections::{self, Activity, Admission, Guarded, Place, RESERVE_DEADLINE};
use crate::net::front::{Ended, Front, Rewind};

/// How long a connection told to close (idle, or the server stopping) may take to go.
const CLOSE_GRACE: Duration = Duration::from_secs(1);
/// How long the live sockets get, once told to go, to send their close frames.
const SESSIONS_GRACE: Duration = Duration::from_secs(2);

/// Serves `state` on `listener` until `stop` yields; then `/readyz` answers 503 while
/// the host goes on serving for the drain (`--drain-s`, cut short when `stop` yields
/// again), then it stops accepting, closes every WebSocket with 1001 (so browsers
/// reconnect elsewhere) and gives in-flight requests `shutdown_timeout` to finish.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    stop: impl Stream<Item = ()> + Send + 'static,
) -> std::io::Result<()> {
    let sockets = state.shutdown.clone();
    let sessions = state.sessions.clone();
    let connections = state.connections.clone();
    let deadline = state.config.http.shutdown_timeout;
    // A connection gets the request timeout to send each request (its headers too, so
    // connections that trickle bytes are closed), and each write the same time to be read.
    let limit = state.config.http.request_timeout;
    tracing::info!(
        budget = connections.budget(),
        reserve = connections::RESERVE,
        "connection budget"
    );
    let site = routes::router(state.clone());
    let fast = Arc::new(routes::FastPath::new(state.clone()));
    let probes = routes::probe_router(state.clone());
    let mut builder = Builder::new(TokioExecutor::new());
    // No header read timeout of hyper's: it arms a timer for every request, and the
    // connection's own idle deadline (see `Connection::serve`) already closes a
    // connection whose request has not arrived, headers and all, within `limit`.
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(None);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(100)
        .keep_alive_interval(Some(Duration::from_secs(20)))
        .keep_alive_timeout(limit);
    let closing = CancellationToken::new();
    let tasks = TaskTracker::new();
    let proxies = Arc::new(state.config.http.trusted_proxies.clone());
    let metrics = state.metrics.clone();
    let accept = |stream: TcpStream, peer: SocketAddr| {
        // Made only for a connection that is served.
        let connection = || {
            let _ = stream.set_nodelay(true);
            Connection {
                builder: builder.clone(),
                peer,
                proxies: proxies.clone(),
                limit,
                closing: closing.clone(),
                metrics: metrics.clone(),
            }
        };
        // A trusted proxy's connections carry many clients: not counted against one.
        let client = (!proxies.trusts_peer(peer.ip())).then_some(peer.ip());
        match connections.admit(client) {
            Admission::Budget(place) => {
                tasks.spawn(connection().serve(stream, place, site.clone(), fast.clone()));
            }
            Admission::Reserve(place, evicted) => {
                tasks.spawn(connection().serve_reserve(stream, place, probes.clone(), evicted));
            }
            Admission::Refused => metrics.connections_refused.inc(),
        }
    };
    let mut stop = std::pin::pin!(stop);
    accept_until(&listener, stop.next(), &accept, &state.metrics).await;
    tracing::info!("shutting down");
    // Unready first, still serving: the load balancer stops sending visitors here before
    // the listener closes, so none meets a refused connection.
    state.draining.store(true, Ordering::Relaxed);
    let drain = state.config.http.drain;
    if !drain.is_zero() {
        tracing::info!(
            drain_s = drain.as_secs(),
            "draining: /readyz answers 503 while requests are still served"
        );
        let again = async {
            stop.next().await;
            tracing::info!("a second signal: stopping now");
        };
        accept_until(&listener, timeout(drain, again), &accept, &state.metrics).await;
    }
    drop(listener);
    sockets.cancel();
    closing.cancel();
    tasks.close();
    // In-flight requests get `shutdown_timeout` to finish; then the process goes anyway.
    tokio::select! {
        () = tasks.wait() => {}
        () = tokio::time::sleep(deadline) => {
            tracing::warn!(deadline_s = deadline.as_secs(), "requests still running at the shutdown deadline");
        }
    }
    // Upgraded sockets outlive their connections; give their close frames a moment.
    sessions.close();
    if timeout(SESSIONS_GRACE, sessions.wait()).await.is_err() {
        tracing::debug!("live sockets still open at the shutdown deadline");
    }
    Ok(())
}

/// Accepts connections and hands each to `accept` until `stop` completes.
async fn accept_until(
    listener: &TcpListener,
    stop: impl Future,
    accept: &impl Fn(TcpStream, SocketAddr),
    metrics: &Metrics,
) {
    let mut stop = std::pin::pin!(stop);
    let mut failing = Failing::default();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    failing.recovered();
                    accept(stream, peer);
                }
                Err(error) => {
                    metrics.accept_failures.inc();
                    failing.failed(&error);
                    // Out of file descriptors, usually: wait for some to close.
                    tokio::time::sleep(ACCEPT_RETRY).await;
                }
            },
            _ = &mut stop => return,
        }
    }
}

/// How long the accept loop waits after a failed accept.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);
/// How often a run of failed accepts that goes on is told again.
const ACCEPT_FAILING_REPEAT: Duration = Duration::from_secs(60);

/// A run of failed accepts, told when it starts, once a minute while it lasts and when
/// it ends: retried every 50 ms, each failure in the log would be twenty lines a second.
#[derive(Default)]
struct Failing {
    /// When the run started, when it was last told, and its failures since then.
    run: Option<(Instant, Instant, u64)>,
}

impl Failing {
    fn failed(&mut self, error: &std::io::Error) {
        let now = Instant::now();
        match &mut self.run {
            None => {
                tracing::warn!(%error, "accept failed: new connections wait until descriptors are free (raise ulimit -n); repeats are counted in lastwords_accept_failures_total");
                self.run = Some((now, now, 0));
            }
            Some((started, told, since)) => {
                *since += 1;
                if now.duration_since(*told) >= ACCEPT_FAILING_REPEAT {
                    tracing::warn!(%error, failures = *since, for_s = now.duration_since(*started).as_secs(), "accept still failing");
                    *told = now;
                    *since = 0;
                }
            }
        }
    }

    fn recovered(&mut self) {
        if let Some((started, _, _)) = self.run.take() {
            tracing::info!(
                after_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                "accepting again"
            );
        }
    }
}

/// What serving one accepted connection needs.
struct Connection {
    /// hyper's HTTP/1 and HTTP/2 settings, shared by every connection.
    builder: Builder<TokioExecutor>,
    /// The TCP peer: the client, or the proxy in front of it.
    peer: SocketAddr,
    /// Whose forwarded headers name the client.
    proxies: Arc<TrustedProxies>,
    /// The request timeout: for a request to arrive, and for a write to be read.
    limit: Duration,
    /// Cancelled when the server stops.
    closing: CancellationToken,
    /// Where what becomes of the connection is counted.
    metrics: Arc<Metrics>,
}

impl Connection {
    /// Serves the whole site, closing the connection once it has had no request in
    /// flight for the request timeout (from the start, or since its last response):
    /// cached pages in front of hyper ([`Front`]) until a request is not one, then hyper.
    async fn serve(self, stream: TcpStream, place: Place, router: Router, fast: Arc<FastPath>) {
        let peer = self.peer;
        let stalls = self.metrics.connections_write_stalled.clone();
        let stream = SharedStream::new(stream);
        let write_side = stream.write_side().clone();
        let mut io = Guarded::new(stream, place, self.limit, stalls);
        let front = Front {
            fast: &fast,
            peer,
            proxies: &self.proxies,
            limit: self.limit,
            closing: &self.closing,
            idle_closed: &self.metrics.connections_idle_closed,
        };
        let read = match front.serve(&mut io).await {
            Ended::Closed => return,
            Ended::Handover(read) => read,
        };
        let activity = Activity::new();
        let proxies = self.proxies.clone();
        let tracking = activity.clone();
        let service =
            hyper::service::service_fn(move |mut request: axum::extract::Request<Incoming>| {
                let in_flight = tracking.begin();
                let client = proxies.client(peer.ip(), request.headers());
                let router = router.clone();
                let fast = fast.clone();
                let write_side = write_side.clone();
                async move {
                    if let Some(refusal) = headers::host_problem(&request) {
                        return Ok(dated(refusal).map(|body| connections::tracked(body, in_flight)));
                    }
                    if let Some(prepared) = fast.answer(&request, client).await {
                        let mut response =
                            Response::new(connections::tracked_bytes(prepared.body, in_flight));
                        *response.headers_mut() = prepared.headers;
                        return Ok(dated(response));
                    }
                    mark(&mut request, peer, client);
                    request.extensions_mut().insert(write_side);
                    router.oneshot(request).await.map(|response| {
                        dated(without_length_if_unmodified(response))
                            .map(|body| connections::tracked(body, in_flight))
                    })
                }
            });
        let io = TokioIo::new(Rewind::new(read, io));
        let connection = self.builder.serve_connection_with_upgrades(io, service);
        tokio::pin!(connection);
        // One timer for the connection's life, looked at when it fires rather than
        // moved for every request: it is set to when the connection would have been
        // idle for the limit, and once it was told to close, to when it must be gone.
        let wake = sleep_until(Instant::now() + self.limit);
        tokio::pin!(wake);
        let mut close_by: Option<Instant> = None;
        loop {
            tokio::select! {
                // hyper first: a request the front handed over half read when the server
                // began to stop is read by hyper, so in flight, before it is told to stop.
                biased;
                outcome = connection.as_mut() => {
                    if let Err(error) = outcome {
                        tracing::debug!(%error, "connection ended with an error");
                    }
                    return;
                }
                () = self.closing.cancelled(), if close_by.is_none() => {
                    connection.as_mut().graceful_shutdown();
                    // The server's own shutdown deadline bounds the requests in flight.
                    let at = Instant::now() + Duration::from_secs(24 * 3600);
                    close_by = Some(at);
                    wake.as_mut().reset(at);
                }
                () = wake.as_mut() => {
                    let now = Instant::now();
                    if close_by.is_some() {
                        return;
                    }
                    match activity.idle_deadline(self.limit) {
                        Some(at) if at <= now => {
                            self.metrics.connections_idle_closed.inc();
                            connection.as_mut().graceful_shutdown();
                            close_by = Some(now + CLOSE_GRACE);
                            wake.as_mut().reset(now + CLOSE_GRACE);
                        }
                        Some(at) => wake.as_mut().reset(at),
                        // A request in flight: look again a limit from now.
                        None => wake.as_mut().reset(now + self.limit),
                    }
                }
            }
        }
    }

    /// Serves a connection past the budget: the probes, and 503 for everything else,
    /// until [`RESERVE_DEADLINE`] or until a newer connection needs its place.
    async fn serve_reserve(
        self,
        stream: TcpStream,
        place: Place,
        router: Router,
        evicted: CancellationToken,
    ) {
        let peer = self.peer;
        let proxies = self.proxies.clone();
        // Unlike `serve`'s: no fast path for the probes; RESERVE_DEADLINE, not idling, ends it.
        let service =
            hyper::service::service_fn(move |mut request: axum::extract::Request<Incoming>| {
                identify(&mut request, peer, &proxies);
                let router = router.clone();
                async move {
                    match headers::host_problem(&request) {
                        Some(refusal) => Ok(dated(refusal)),
                        None => router
                            .oneshot(request)
                            .await
                            .map(|response| dated(without_length_if_unmodified(response))),
                    }
                }
            });
        let stalls = self.metrics.connections_write_stalled.clone();
        let io = TokioIo::new(Guarded::new(stream, place, RESERVE_DEADLINE, stalls));
        let connection = self.builder.serve_connection(io, service);
        tokio::select! {
            _ = timeout(RESERVE_DEADLINE, connection) => {}
            () = evicted.cancelled() => {
                self.metrics.connections_refused.inc();
            }
            () = self.closing.cancelled() => {}
        }
    }
}

/// Marks a request with its TCP peer and its client (the peer, or behind trusted
/// proxies the address they forwarded).
fn identify(
    request: &mut axum::extract::Request<Incoming>,
    peer: SocketAddr,
    proxies: &TrustedProxies,
) {
    let client = proxies.client(peer.ip(), request.headers());
    mark(request, peer, client);
}

/// Marks a request with its TCP peer and its `client`, for the router.
fn mark(request: &mut axum::extract::Request<Incoming>, peer: SocketAddr, client: IpAddr) {
    let extensions = request.extensions_mut();
    extensions.insert(ConnectInfo(peer));
    extensions.insert(ClientAddr(client));
}

/// `response` with the fast path's `Date` (see [`front::date_value`]).
fn dated<B>(mut response: Response<B>) -> Response<B> {
    response
        .headers_mut()
        .entry(axum::http::header::DATE)
        .or_insert_with(front::date_value);
    response
}

/// A 304 without the `Content-Length: 0` axum gives a HEAD's empty body: RFC 9110 (8.6)
/// allows only the length a 200 would have, and a cache may take it for the page's.
fn without_length_if_unmodified<B>(mut response: Response<B>) -> Response<B> {
    if response.status() == axum::http::StatusCode::NOT_MODIFIED {
        response
            .headers_mut()
            .remove(axum::http::header::CONTENT_LENGTH);
    }
    response
}

/// Yields on every Ctrl-C, SIGTERM (what a container runtime sends to stop us) or SIGHUP
/// (the terminal or session that started us went away; unheard, it ended the process
/// on the spot, its sockets cut): the first starts the drain, a second ends it.
/// Listening starts here, so no signal is missed between the two.
pub fn shutdown_signals() -> std::io::Result<impl Stream<Item = ()> + Send + 'static> {
    use tokio::signal::unix::{SignalKind, signal};
    let signals = (
        signal(SignalKind::terminate())?,
        signal(SignalKind::interrupt())?,
        signal(SignalKind::hangup())?,
    );
    Ok(futures_util::stream::unfold(
        signals,
        |(mut terminate, mut interrupt, mut hangup)| async move {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = interrupt.recv() => {}
                _ = hangup.recv() => {}
            }
            Some(((), (terminate, interrupt, hangup)))
        },
    ))
}
