//! `/api/phrases/live`: one WebSocket per browser, kept current from the [`Hub`].
//!
//! The browser connects with the version it has (`?since=`), gets what it missed, then
//! every change as it happens. Pings find dead peers; a peer that stops reading is cut
//! off after a send timeout instead of holding memory, and any socket that fell behind
//! the broadcast gets a fresh snapshot.

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade, close_code};
use axum::extract::{Query, State};
use axum::response::Response;
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

/// Upgrades to a WebSocket with small buffers: thousands of idle sockets must fit.
pub async fn upgrade(
    State(state): State<AppState>,
    Query(query): Query<LiveQuery>,
    ws: WebSocketUpgrade,
) -> Response {
    let hub = state.hub.clone();
    let shutdown = state.shutdown.clone();
    ws.read_buffer_size(MAX_FRAME)
        .write_buffer_size(0)
        .max_write_buffer_size(256 * 1024)
        .max_frame_size(MAX_FRAME)
        .max_message_size(MAX_FRAME)
        .on_upgrade(move |socket| session(socket, hub, query.since, shutdown))
}

async fn session(socket: WebSocket, hub: Hub, since: Option<u64>, shutdown: CancellationToken) {
    // Subscribe before catching up, so nothing published in between is lost.
    let mut updates = hub.subscribe();
    let (mut sink, mut stream) = socket.split();

    let mut have = since.unwrap_or(0);
    let caught_up = match hub.catch_up(since) {
        Catchup::Nothing => true,
        Catchup::Changes(missed) => {
            let mut ok = true;
            for update in missed {
                ok = ok && send(&mut sink, Message::Text(update.text)).await;
                have = update.version;
            }
            ok
        }
        Catchup::Snapshot(version, text) => {
            have = version;
            send(&mut sink, Message::Text(text)).await
        }
    };
    if !caught_up {
        return;
    }

    let mut ping = interval(PING_EVERY);
    ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
    ping.reset();
    let mut last_heard = Instant::now();
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
                        let (version, text) = hub.snapshot();
                        have = version;
                        text
                    }
                    Err(RecvError::Closed) => break None,
                };
                if !send(&mut sink, Message::Text(text)).await {
                    return;
                }
            }
            frame = stream.next() => match frame {
                Some(Ok(Message::Close(_))) | None => return,
                Some(Ok(_)) => last_heard = Instant::now(),
                Some(Err(error)) => {
                    tracing::debug!(%error, "websocket closed by an error");
                    return;
                }
            },
            _ = ping.tick() => {
                if last_heard.elapsed() > SILENCE_LIMIT {
                    break Some((close_code::POLICY, "no pong"));
                }
                if !send(&mut sink, Message::Ping(Default::default())).await {
                    return;
                }
            }
            () = shutdown.cancelled() => break Some((close_code::AWAY, "server restarting")),
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
async fn send(sink: &mut SplitSink<WebSocket, Message>, message: Message) -> bool {
    matches!(timeout(SEND_TIMEOUT, sink.send(message)).await, Ok(Ok(())))
}
