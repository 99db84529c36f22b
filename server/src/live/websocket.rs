//! One WebSocket per browser, kept current from the [`Hub`].
//!
//! The browser connects with the version it has (`?since=`), gets what it missed, then
//! every change as it happens. Pings find dead peers; a peer that stops reading is cut
//! off after a send timeout instead of holding memory, and any socket that fell behind
//! the broadcast gets a fresh snapshot.
//!
//! The framing is our own, for a bound on memory whatever the peer does: a message is
//! written straight from the bytes the hub encoded once for every socket (a general
//! WebSocket library copies each into a per-socket buffer that keeps the size of the
//! largest message it ever sent), the read side holds one control frame at most, and a
//! ping waits for its pong in a single slot. A socket costs its task and its kernel
//! buffers, however large the list.

use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::http::{HeaderMap, HeaderValue, header};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
use tokio::sync::Notify;
use tokio::sync::broadcast::error::RecvError;
use tokio::time::{Instant, MissedTickBehavior, interval, timeout};
use tokio_util::sync::CancellationToken;

use crate::live::hub::{Catchup, Hub};
use crate::live::socket_limits::SocketLimits;

/// How often the server pings.
const PING_EVERY: Duration = Duration::from_secs(20);
/// A peer silent for this long (no pong, no frame) is gone.
const SILENCE_LIMIT: Duration = Duration::from_secs(45);
/// A peer that does not take a message within this time is cut off.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);
/// Browsers send nothing but control frames; anything larger is abuse.
pub const MAX_FRAME: usize = 4 * 1024;
/// Frames a client may send per [`FRAME_WINDOW`]: a browser sends one pong per ping.
/// More is a flood, closed whether or not the peer reads what it is sent.
const FRAMES_PER_WINDOW: u32 = 100;
const FRAME_WINDOW: Duration = Duration::from_secs(10);

/// The `Sec-WebSocket-Accept` answering a valid opening handshake (RFC 6455, 4.2.1).
pub fn accept_key(headers: &HeaderMap) -> Result<HeaderValue, &'static str> {
    let has_token = |name: header::HeaderName, token: &str| {
        headers
            .get_all(name)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .any(|item| item.trim().eq_ignore_ascii_case(token))
    };
    if !has_token(header::CONNECTION, "upgrade") || !has_token(header::UPGRADE, "websocket") {
        return Err("this address is a WebSocket: send Connection: upgrade and Upgrade: websocket");
    }
    if headers
        .get(header::SEC_WEBSOCKET_VERSION)
        .map(HeaderValue::as_bytes)
        != Some(b"13")
    {
        return Err("only WebSocket version 13 is spoken");
    }
    let key = headers
        .get(header::SEC_WEBSOCKET_KEY)
        .ok_or("the Sec-WebSocket-Key header is missing")?;
    HeaderValue::from_str(&tungstenite::handshake::derive_accept_key(key.as_bytes()))
        .map_err(|_| "the Sec-WebSocket-Key header is malformed")
}

/// Frame opcodes (RFC 6455, 5.2).
mod opcode {
    pub const CONTINUATION: u8 = 0x0;
    pub const TEXT: u8 = 0x1;
    pub const BINARY: u8 = 0x2;
    pub const CLOSE: u8 = 0x8;
    pub const PING: u8 = 0x9;
    pub const PONG: u8 = 0xA;
}

/// Close codes (RFC 6455, 7.4.1).
mod close_code {
    pub const NORMAL: u16 = 1000;
    pub const AWAY: u16 = 1001;
    pub const PROTOCOL: u16 = 1002;
    pub const POLICY: u16 = 1008;
    pub const SIZE: u16 = 1009;
}

/// Why the read side stopped.
enum Heard {
    /// The peer sent a close frame.
    Close,
    /// A message over [`MAX_FRAME`].
    TooBig,
    /// Something a client may not send (unmasked or reserved bits, a bad opcode).
    Broken,
    /// More than [`FRAMES_PER_WINDOW`] frames in a window.
    Flood,
    /// The connection ended or failed.
    Gone,
}

/// What the read side tells the write side.
struct Inbox {
    started: Instant,
    /// Milliseconds after `started` that the peer last sent a frame.
    last_heard_ms: AtomicU64,
    /// The payload of the latest ping, not yet answered: one slot, so a flood of pings
    /// costs nothing more than one.
    pong: Mutex<Option<Vec<u8>>>,
    pong_due: Notify,
}

impl Inbox {
    fn heard(&self) {
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_heard_ms.store(now, Ordering::Relaxed);
    }

    fn silent_for(&self) -> Duration {
        let heard = Duration::from_millis(self.last_heard_ms.load(Ordering::Relaxed));
        self.started.elapsed().saturating_sub(heard)
    }
}

/// Reads the client's frames until one ends the session. Data is counted and dropped
/// (browsers send none); pings are queued for the write side in one slot.
async fn read_frames<R: AsyncRead + Unpin>(reader: &mut R, inbox: &Inbox) -> Heard {
    match read_loop(reader, inbox).await {
        Ok(heard) => heard,
        Err(_) => Heard::Gone,
    }
}

async fn read_loop<R: AsyncRead + Unpin>(reader: &mut R, inbox: &Inbox) -> io::Result<Heard> {
    // The length so far of a data message still arriving in fragments.
    let mut open_message: Option<u64> = None;
    let (mut window_start, mut frames) = (Instant::now(), 0u32);
    loop {
        let mut head = [0u8; 2];
        reader.read_exact(&mut head).await?;
        let fin = head[0] & 0x80 != 0;
        let reserved = head[0] & 0x70;
        let code = head[0] & 0x0F;
        let masked = head[1] & 0x80 != 0;
        if reserved != 0 || !masked {
            return Ok(Heard::Broken);
        }
        let len = match head[1] & 0x7F {
            126 => u64::from(reader.read_u16().await?),
            127 => reader.read_u64().await?,
            len => u64::from(len),
        };
        let mut mask = [0u8; 4];
        reader.read_exact(&mut mask).await?;
        inbox.heard();
        if window_start.elapsed() > FRAME_WINDOW {
            (window_start, frames) = (Instant::now(), 0);
        }
        frames += 1;
        if frames > FRAMES_PER_WINDOW {
            return Ok(Heard::Flood);
        }
        match code {
            opcode::CLOSE | opcode::PING | opcode::PONG => {
                if !fin || len > 125 {
                    return Ok(Heard::Broken);
                }
                let mut payload = [0u8; 125];
                let payload = &mut payload[..len as usize];
                reader.read_exact(payload).await?;
                match code {
                    opcode::CLOSE => return Ok(Heard::Close),
                    opcode::PING => {
                        for (i, byte) in payload.iter_mut().enumerate() {
                            *byte ^= mask[i % 4];
                        }
                        *inbox.pong.lock().unwrap_or_else(|e| e.into_inner()) =
                            Some(payload.to_vec());
                        inbox.pong_due.notify_one();
                    }
                    _ => {}
                }
            }
            opcode::CONTINUATION | opcode::TEXT | opcode::BINARY => {
                let so_far = match (code, open_message) {
                    (opcode::CONTINUATION, Some(so_far)) => so_far,
                    (opcode::CONTINUATION, None) | (_, Some(_)) => return Ok(Heard::Broken),
                    (_, None) => 0,
                };
                let total = so_far.saturating_add(len);
                if total > MAX_FRAME as u64 {
                    return Ok(Heard::TooBig);
                }
                discard(reader, len).await?;
                open_message = (!fin).then_some(total);
            }
            _ => return Ok(Heard::Broken),
        }
    }
}

/// Reads and drops `len` bytes.
async fn discard<R: AsyncRead + Unpin>(reader: &mut R, mut len: u64) -> io::Result<()> {
    let mut scratch = [0u8; 512];
    while len > 0 {
        let want = usize::try_from(len).map_or(scratch.len(), |len| len.min(scratch.len()));
        let read = reader.read(&mut scratch[..want]).await?;
        if read == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        len -= read as u64;
    }
    Ok(())
}

/// Writes one unmasked frame: its header, then the payload from where it lies (for a
/// message, the bytes every socket shares), in one vectored write when the socket takes it.
async fn write_frame<W: AsyncWrite + Unpin>(
    writer: &mut W,
    code: u8,
    payload: &[u8],
) -> io::Result<()> {
    let mut head = [0u8; 10];
    head[0] = 0x80 | code;
    let head_len = match payload.len() {
        len if len < 126 => {
            head[1] = len as u8;
            2
        }
        len if len <= usize::from(u16::MAX) => {
            head[1] = 126;
            head[2..4].copy_from_slice(&(len as u16).to_be_bytes());
            4
        }
        len => {
            head[1] = 127;
            head[2..10].copy_from_slice(&(len as u64).to_be_bytes());
            10
        }
    };
    let (mut head, mut payload) = (&head[..head_len], payload);
    while !head.is_empty() || !payload.is_empty() {
        let slices = [io::IoSlice::new(head), io::IoSlice::new(payload)];
        let written = writer.write_vectored(&slices).await?;
        if written == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        let from_head = written.min(head.len());
        head = &head[from_head..];
        payload = &payload[written - from_head..];
    }
    writer.flush().await
}

pub async fn session<IO: AsyncRead + AsyncWrite + Unpin>(
    socket: IO,
    hub: Hub,
    since: Option<u64>,
    shutdown: CancellationToken,
    limits: &SocketLimits,
) {
    // Subscribe before catching up, so nothing published in between is lost.
    let mut updates = hub.subscribe();
    let (mut reader, mut writer) = tokio::io::split(socket);
    let inbox = Inbox {
        started: Instant::now(),
        last_heard_ms: AtomicU64::new(0),
        pong: Mutex::new(None),
        pong_due: Notify::new(),
    };

    let mut have = since.unwrap_or(0);
    let caught_up = match hub.catch_up(since) {
        Catchup::Nothing => true,
        Catchup::Changes(missed) => {
            let mut ok = true;
            for update in missed {
                ok = ok && send(limits, &mut writer, opcode::TEXT, update.text.as_bytes()).await;
                have = update.version;
            }
            ok
        }
        Catchup::Snapshot(version, text) => {
            have = version;
            send(limits, &mut writer, opcode::TEXT, text.as_bytes()).await
        }
    };
    if !caught_up {
        return;
    }

    let mut ping = interval(PING_EVERY);
    ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
    ping.reset();
    // Made once: a fresh one per turn would register with the token every message.
    let shutting_down = shutdown.cancelled();
    tokio::pin!(shutting_down);
    let (close, peer_closed) = {
        let heard = read_frames(&mut reader, &inbox);
        tokio::pin!(heard);
        loop {
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
                        Err(RecvError::Closed) => return,
                    };
                    if !send(limits, &mut writer, opcode::TEXT, text.as_bytes()).await {
                        return;
                    }
                }
                heard = &mut heard => match heard {
                    Heard::Close => break ((close_code::NORMAL, ""), true),
                    Heard::TooBig => break ((close_code::SIZE, "frames are limited to 4 KiB"), false),
                    Heard::Broken => break ((close_code::PROTOCOL, "not a client frame"), false),
                    Heard::Flood => break ((close_code::POLICY, "too many frames"), false),
                    Heard::Gone => return,
                },
                () = inbox.pong_due.notified() => {
                    let pong = inbox.pong.lock().unwrap_or_else(|e| e.into_inner()).take();
                    if let Some(pong) = pong
                        && !send(limits, &mut writer, opcode::PONG, &pong).await
                    {
                        return;
                    }
                }
                _ = ping.tick() => {
                    if inbox.silent_for() > SILENCE_LIMIT {
                        break ((close_code::POLICY, "no pong"), false);
                    }
                    if !send(limits, &mut writer, opcode::PING, &[]).await {
                        return;
                    }
                }
                () = &mut shutting_down => break ((close_code::AWAY, "server restarting"), false),
            }
        }
    };
    let (code, reason) = close;
    let mut payload = code.to_be_bytes().to_vec();
    payload.extend_from_slice(reason.as_bytes());
    let closing = async {
        write_frame(&mut writer, opcode::CLOSE, &payload).await?;
        if !peer_closed {
            // Wait for the peer's close (or its end) so our frame is not lost to a reset
            // for data it still had in flight.
            writer.shutdown().await?;
            let mut scratch = [0u8; 512];
            while reader.read(&mut scratch).await? > 0 {}
        }
        Ok::<_, io::Error>(())
    };
    let _ = timeout(Duration::from_secs(1), closing).await;
}

/// Sends one frame, giving up on a peer that does not take it in time.
async fn send<W: AsyncWrite + Unpin>(
    limits: &SocketLimits,
    writer: &mut W,
    code: u8,
    payload: &[u8],
) -> bool {
    let sent = matches!(
        timeout(SEND_TIMEOUT, write_frame(writer, code, payload)).await,
        Ok(Ok(()))
    );
    if sent && code != opcode::PONG {
        limits.sent.fetch_add(1, Ordering::Relaxed);
    }
    sent
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feed::{Change, Feed, Phrase};
    use crate::live::socket_limits::{SocketCaps, SocketLimits};

    /// Reads one unmasked server frame: its opcode and payload.
    async fn frame(reader: &mut (impl AsyncRead + Unpin)) -> Option<(u8, Vec<u8>)> {
        let mut head = [0u8; 2];
        reader.read_exact(&mut head).await.ok()?;
        let len = match head[1] & 0x7f {
            126 => u64::from(reader.read_u16().await.ok()?),
            127 => reader.read_u64().await.ok()?,
            n => u64::from(n),
        };
        let mut payload = vec![0; len as usize];
        reader.read_exact(&mut payload).await.ok()?;
        Some((head[0] & 0x0f, payload))
    }

    fn phrase(n: u64) -> Phrase {
        Phrase {
            id: format!("p{n:05}"),
            word: format!("BURST {n}"),
            name: "Writer".into(),
            created: n,
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_reader_that_falls_behind_a_burst_of_a_thousand_changes_converges_by_a_snapshot() {
        let feed = Feed::new();
        feed.replace(vec![phrase(0)]);
        let hub = crate::live::hub::Hub::start(feed.clone());
        let limits = SocketLimits::new(SocketCaps {
            max: 10,
            max_per_ip: 0,
        });
        // A pipe that holds little: the session's writes wait for this slow reader.
        let (server, mut client) = tokio::io::duplex(512);
        let session = {
            let (hub, limits) = (hub.clone(), limits.clone());
            tokio::spawn(async move {
                session(server, hub, None, CancellationToken::new(), &limits).await;
            })
        };
        let (_, first) = frame(&mut client).await.expect("the first snapshot");
        assert!(first.starts_with(br#"{"type":"snapshot""#));

        // A thousand changes, one at a time, as fast as a store can publish them.
        for n in 1..=1000 {
            feed.apply(vec![Change::Upsert { phrase: phrase(n) }]);
            tokio::task::yield_now().await;
        }
        let target = feed.current().version;
        // The reader keeps reading, slowly at first; it must end at the last version
        // with the whole count, having been sent at least one fresh snapshot.
        let mut version = 0;
        let mut count = 0;
        let mut frames = 0;
        let deadline = Instant::now() + Duration::from_secs(20);
        while version != target && Instant::now() < deadline {
            if frames < 20 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            let Ok(Some((code, payload))) =
                timeout(Duration::from_secs(5), frame(&mut client)).await
            else {
                break;
            };
            frames += 1;
            if code != opcode::TEXT {
                continue;
            }
            let message: serde_json::Value = serde_json::from_slice(&payload).unwrap();
            version = message["version"].as_u64().unwrap();
            count = message["count"].as_u64().unwrap();
        }
        assert_eq!(
            version, target,
            "the reader caught up with the last version"
        );
        assert_eq!(count, 1001);
        assert!(
            limits.resnapshots.load(Ordering::Relaxed) >= 1,
            "it fell behind and was sent the first page again"
        );
        assert!(
            frames < 1000,
            "it was not sent every change ({frames} frames)"
        );
        session.abort();
    }
}
