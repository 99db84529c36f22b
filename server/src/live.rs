//! `/api/phrases/live`: one WebSocket per browser, kept current from the [`Hub`].
//!
//! The browser connects with the version it has (`?since=`), gets what it missed, then
//! every change as it happens. Pings find dead peers; a peer that stops reading is cut
//! off after a send timeout instead of holding memory, and any socket that fell behind
//! the broadcast gets a fresh snapshot.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Extension;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade, close_code};
use axum::extract::{ConnectInfo, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::stream::SplitSink;
use futures_util::{SinkExt as _, StreamExt as _};
use serde::Deserialize;
use tokio::sync::broadcast::error::RecvError;
use tokio::time::{Instant, MissedTickBehavior, interval, timeout};
use tokio_util::sync::CancellationToken;

use crate::app::AppState;
use crate::hub::{Catchup, Hub};

/// How often the server pings.
const PING_EVERY: Duration = Duration::from_secs(20);
/// A peer silent for this long (no pong, no frame) is gone.
const SILENCE_LIMIT: Duration = Duration::from_secs(45);
/// A peer that does not take a message within this time is cut off.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);
/// Browsers send nothing but control frames; anything larger is abuse.
pub const MAX_FRAME: usize = 4 * 1024;

#[derive(Deserialize)]
pub struct LiveQuery {
    /// The version the browser already has (from the page's props).
    since: Option<u64>,
}

/// How many live sockets there are, in all and per client address, with the caps.
#[derive(Debug)]
pub struct SocketLimits {
    max: usize,
    /// 0 means no per-address limit.
    max_per_ip: usize,
    open: AtomicUsize,
    per_ip: Mutex<HashMap<IpAddr, usize>>,
    /// Upgrades refused by a cap, for `/metrics`.
    pub refused: AtomicU64,
    /// Messages written to sockets, for `/metrics`.
    pub sent: AtomicU64,
    /// Sockets that fell behind the broadcast and were sent the whole list instead.
    pub resnapshots: AtomicU64,
}

/// One socket's place under the caps, given back when the socket ends.
pub struct SocketPermit {
    limits: Arc<SocketLimits>,
    ip: Option<IpAddr>,
}

impl SocketLimits {
    pub fn new(max: usize, max_per_ip: usize) -> Arc<Self> {
        Arc::new(Self {
            max,
            max_per_ip,
            open: AtomicUsize::new(0),
            per_ip: Mutex::default(),
            refused: AtomicU64::new(0),
            sent: AtomicU64::new(0),
            resnapshots: AtomicU64::new(0),
        })
    }

    /// Live sockets now.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    fn try_acquire(self: &Arc<Self>, ip: Option<IpAddr>) -> Option<SocketPermit> {
        let taken = self
            .open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                (open < self.max).then_some(open + 1)
            });
        if taken.is_err() {
            self.refused.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        // From here the permit's Drop gives back what was taken.
        let mut permit = SocketPermit {
            limits: self.clone(),
            ip: None,
        };
        if let (Some(ip), true) = (ip, self.max_per_ip > 0) {
            let mut per_ip = self.per_ip.lock().unwrap_or_else(|e| e.into_inner());
            let count = per_ip.entry(ip).or_default();
            if *count >= self.max_per_ip {
                self.refused.fetch_add(1, Ordering::Relaxed);
                return None;
            }
            *count += 1;
            permit.ip = Some(ip);
        }
        Some(permit)
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

/// Upgrades to a WebSocket with small buffers: thousands of idle sockets must fit.
/// Pages of other origins may not open it (a browser always sends `Origin`), and the
/// caps answer 503 so a client retries later or elsewhere.
pub async fn upgrade(
    State(state): State<AppState>,
    Query(query): Query<LiveQuery>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    let origin = headers
        .get(header::ORIGIN)
        .and_then(|value| value.to_str().ok());
    if !origin.is_some_and(|origin| state.config.allowed_origins.iter().any(|o| o == origin)) {
        tracing::debug!(?origin, "websocket from a foreign origin refused");
        return (
            StatusCode::FORBIDDEN,
            "this origin may not open the live feed",
        )
            .into_response();
    }
    let ip = peer.map(|Extension(ConnectInfo(addr))| addr.ip());
    let Some(permit) = state.sockets.try_acquire(ip) else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "5")],
            "too many live connections; try again shortly",
        )
            .into_response();
    };
    let hub = state.hub.clone();
    let shutdown = state.shutdown.clone();
    ws.read_buffer_size(MAX_FRAME)
        .write_buffer_size(0)
        // A cap, not an allocation: the whole list must fit (it can pass 256 KiB with a
        // few thousand phrases); a peer that stops reading is cut by SEND_TIMEOUT.
        .max_write_buffer_size(16 * 1024 * 1024)
        .max_frame_size(MAX_FRAME)
        .max_message_size(MAX_FRAME)
        .on_upgrade(move |socket| async move {
            session(socket, hub, query.since, shutdown, &permit.limits).await;
            drop(permit);
        })
}

async fn session(
    socket: WebSocket,
    hub: Hub,
    since: Option<u64>,
    shutdown: CancellationToken,
    limits: &SocketLimits,
) {
    // Subscribe before catching up, so nothing published in between is lost.
    let mut updates = hub.subscribe();
    let (mut sink, mut stream) = socket.split();

    let mut have = since.unwrap_or(0);
    let caught_up = match hub.catch_up(since) {
        Catchup::Nothing => true,
        Catchup::Changes(missed) => {
            let mut ok = true;
            for update in missed {
                ok = ok && send(limits, &mut sink, Message::Text(update.text)).await;
                have = update.version;
            }
            ok
        }
        Catchup::Snapshot(version, text) => {
            have = version;
            send(limits, &mut sink, Message::Text(text)).await
        }
    };
    if !caught_up {
        return;
    }

    let mut ping = interval(PING_EVERY);
    ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
    ping.reset();
    let mut last_heard = Instant::now();
    // Made once: a fresh one per turn would register with the token every message.
    let shutting_down = shutdown.cancelled();
    tokio::pin!(shutting_down);
    let close = loop {
        tokio::select! {
            update = updates.recv() => {
                let text = match update {
                    Ok(update) if update.version <= have => continue,
                    Ok(update) if update.from == have => {
                        have = update.version;
                        update.text
                    }
                    // A gap (coalesced or lagged updates): the whole list is cheaper to get right.
                    Ok(_) | Err(RecvError::Lagged(_)) => {
                        limits.resnapshots.fetch_add(1, Ordering::Relaxed);
                        let (version, text) = hub.snapshot();
                        have = version;
                        text
                    }
                    Err(RecvError::Closed) => break None,
                };
                if !send(limits, &mut sink, Message::Text(text)).await {
                    return;
                }
            }
            frame = stream.next() => match frame {
                Some(Ok(Message::Close(_))) | None => return,
                Some(Ok(_)) => last_heard = Instant::now(),
                Some(Err(error)) => {
                    tracing::debug!(%error, "websocket closed by an error");
                    if is_too_big(error) {
                        break Some((close_code::SIZE, "frames are limited to 4 KiB"));
                    }
                    return;
                }
            },
            _ = ping.tick() => {
                if last_heard.elapsed() > SILENCE_LIMIT {
                    break Some((close_code::POLICY, "no pong"));
                }
                if !send(limits, &mut sink, Message::Ping(Default::default())).await {
                    return;
                }
            }
            () = &mut shutting_down => break Some((close_code::AWAY, "server restarting")),
        }
    };
    if let Some((code, reason)) = close {
        let frame = CloseFrame {
            code,
            reason: reason.into(),
        };
        let _ = timeout(
            Duration::from_secs(1),
            sink.send(Message::Close(Some(frame))),
        )
        .await;
    }
}

/// Sends one message, giving up on a peer that does not take it in time.
async fn send(
    limits: &SocketLimits,
    sink: &mut SplitSink<WebSocket, Message>,
    message: Message,
) -> bool {
    let sent = matches!(timeout(SEND_TIMEOUT, sink.send(message)).await, Ok(Ok(())));
    if sent {
        limits.sent.fetch_add(1, Ordering::Relaxed);
    }
    sent
}

/// Whether a read failed because the peer sent a frame over [`MAX_FRAME`].
fn is_too_big(error: axum::Error) -> bool {
    let source = error.into_inner();
    matches!(
        source.downcast_ref::<tungstenite::Error>(),
        Some(tungstenite::Error::Capacity(_))
    )
}
