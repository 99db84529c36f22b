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

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;

use axum::http::{HeaderMap, HeaderValue, header};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
use tokio::time::{Instant, MissedTickBehavior, Sleep, interval, sleep, timeout};
use tokio_util::sync::CancellationToken;

use crate::live::frames::{Heard, Inbox, frame, opcode, read_frames};
use crate::live::hub::{Catchup, Hub};
use crate::live::peers::Peer;
use crate::metrics::Metrics;
use crate::net::shared::SharedWrite;

pub use crate::live::frames::MAX_FRAME;

/// How often the server pings.
const PING_EVERY: Duration = Duration::from_secs(20);
/// Sent with each ping: a browser answers pings itself and never shows them to the page,
/// which would otherwise take a connection a network change left half open (nothing
/// arrives, nothing fails) for a quiet list, and keep showing a stale one as live. It
/// starts over when it has heard nothing for some pings (`ui/src/liveSocket.ts`).
const ALIVE: &[u8] = br#"{"type":"alive"}"#;
/// The ping and [`ALIVE`], written together.
static PING_FRAMES: std::sync::LazyLock<Vec<u8>> =
    std::sync::LazyLock::new(|| [frame(opcode::PING, &[]), frame(opcode::TEXT, ALIVE)].concat());
/// A peer silent for this long (no pong, no frame) is gone.
const SILENCE_LIMIT: Duration = Duration::from_secs(45);
/// A peer that does not take a message within this time is cut off.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// Why an opening handshake is refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// It is not one this host can answer, for the reason given.
    Malformed(&'static str),
    /// It asks for a version of the protocol other than 13, the one spoken: answered
    /// 426 with the version (RFC 6455, 4.4), so a client can ask again in it.
    Version,
}

/// The `Sec-WebSocket-Accept` answering a valid opening handshake (RFC 6455, 4.2.1).
pub fn accept_key(headers: &HeaderMap) -> Result<HeaderValue, Refused> {
    use Refused::Malformed;
    let has_token = |name: header::HeaderName, token: &str| {
        headers
            .get_all(name)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .any(|item| item.trim().eq_ignore_ascii_case(token))
    };
    if !has_token(header::CONNECTION, "upgrade") || !has_token(header::UPGRADE, "websocket") {
        return Err(Malformed(
            "this address is a WebSocket: send Connection: upgrade and Upgrade: websocket",
        ));
    }
    // An opening handshake is a GET without a body (RFC 6455, 4.1). Bytes after one
    // would be read here as the peer's first frames, and by a proxy that did not see
    // the upgrade as the request's body: the two would disagree on where the next
    // request begins.
    if headers.contains_key(header::TRANSFER_ENCODING)
        || headers
            .get_all(header::CONTENT_LENGTH)
            .iter()
            .any(|length| !is_zero(length.as_bytes()))
    {
        return Err(Malformed(
            "an opening handshake has no body: send no Content-Length or Transfer-Encoding",
        ));
    }
    if headers
        .get(header::SEC_WEBSOCKET_VERSION)
        .map(HeaderValue::as_bytes)
        != Some(b"13")
    {
        return Err(Refused::Version);
    }
    // Each at most once (RFC 6455, 11.3): with two, which was answered could differ.
    if headers.get_all(header::SEC_WEBSOCKET_KEY).iter().count() > 1
        || headers
            .get_all(header::SEC_WEBSOCKET_VERSION)
            .iter()
            .count()
            > 1
    {
        return Err(Malformed(
            "Sec-WebSocket-Key and Sec-WebSocket-Version may each be sent once",
        ));
    }
    let key = headers
        .get(header::SEC_WEBSOCKET_KEY)
        .ok_or(Malformed("the Sec-WebSocket-Key header is missing"))?;
    // 16 random bytes in base64 (RFC 6455, 4.1), which is how a client that speaks the
    // protocol shows it does.
    use base64::Engine as _;
    let malformed =
        Malformed("the Sec-WebSocket-Key header is malformed: it is 16 bytes in base64");
    match base64::engine::general_purpose::STANDARD.decode(key.as_bytes()) {
        Ok(bytes) if bytes.len() == 16 => {}
        _ => return Err(malformed),
    }
    HeaderValue::from_str(&derive_accept_key(key.as_bytes())).map_err(|_| malformed)
}

/// Whether a `Content-Length` says no bytes: `0`, or `00` and the like (1*DIGIT, as hyper reads it).
fn is_zero(length: &[u8]) -> bool {
    !length.is_empty() && length.iter().all(|&digit| digit == b'0')
}

/// The key's answer: SHA-1 of the key and the protocol's GUID, in base64 (RFC 6455, 4.2.2).
fn derive_accept_key(key: &[u8]) -> String {
    use base64::Engine as _;
    use sha1::Digest as _;
    let mut sha1 = sha1::Sha1::new();
    sha1.update(key);
    sha1.update(b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11");
    base64::engine::general_purpose::STANDARD.encode(sha1.finalize())
}

/// Close codes (RFC 6455, 7.4.1).
mod close_code {
    pub const NORMAL: u16 = 1000;
    pub const AWAY: u16 = 1001;
    pub const PROTOCOL: u16 = 1002;
    pub const NOT_TEXT: u16 = 1007;
    pub const POLICY: u16 = 1008;
    pub const SIZE: u16 = 1009;
    pub const TRY_AGAIN_LATER: u16 = 1013;
}

/// Serves one WebSocket until either side closes it or the server stops: its frames
/// are read from `reader` (the upgraded connection, with what was read past the upgrade
/// request), and written to `stream`, its socket, which the fan-out writes to as well.
pub async fn session(
    stream: SharedWrite,
    mut reader: impl AsyncRead + Unpin,
    hub: Hub,
    since: Option<u64>,
    shutdown: CancellationToken,
    metrics: &Metrics,
) {
    // Joined before catching up, and held until the catch-up is written, so nothing
    // published in between is lost.
    let peer = hub.join(stream.clone(), since);
    let _leave = Leave(&hub, &peer);
    let mut abort = Abort {
        stream: &stream,
        armed: true,
    };
    let inbox = Inbox::new();
    let mut sender = Sender {
        hub: &hub,
        peer: &peer,
        writer: &stream,
        // Armed only while a message waits for the peer to make room (see `send_frame`).
        deadline: Box::pin(sleep(SEND_TIMEOUT)),
        metrics,
    };
    if !sender.catch_up(true).await {
        return;
    }

    let mut ping = interval(PING_EVERY);
    ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
    ping.reset();
    // Made once: a fresh one per turn would register with the token every message.
    let shutting_down = shutdown.cancelled();
    tokio::pin!(shutting_down);
    let pong_due = inbox.pong_due.notified();
    tokio::pin!(pong_due);
    let handed_over = peer.handed_over();
    tokio::pin!(handed_over);
    let mut sent_away = hub.sent_away();
    // Looked at when the limit would be reached if nothing were heard since, not at each
    // ping: a peer's last frame moves it, and is read without touching the timer.
    let silence = sleep(SILENCE_LIMIT);
    tokio::pin!(silence);
    let (close, peer_closed) = {
        let heard = read_frames(&mut reader, &inbox);
        tokio::pin!(heard);
        loop {
            tokio::select! {
                biased;
                () = &mut handed_over => {
                    handed_over.set(peer.handed_over());
                    if !sender.catch_up(false).await {
                        return;
                    }
                }
                heard = &mut heard => match heard {
                    Heard::Close => break ((close_code::NORMAL, ""), true),
                    Heard::TooBig => break ((close_code::SIZE, "frames are limited to 4 KiB"), false),
                    Heard::Broken => break ((close_code::PROTOCOL, "not a client frame"), false),
                    Heard::NotText => break ((close_code::NOT_TEXT, "text is UTF-8"), false),
                    Heard::Flood => break ((close_code::POLICY, "too many frames"), false),
                    Heard::Gone => return,
                },
                () = &mut pong_due => {
                    pong_due.set(inbox.pong_due.notified());
                    let pong = inbox.pong.lock().unwrap_or_else(|e| e.into_inner()).take();
                    if let Some(pong) = pong
                        && !sender.own_frame(&frame(opcode::PONG, &pong), false).await
                    {
                        return;
                    }
                }
                () = &mut silence => {
                    let silent = inbox.silent_for();
                    if silent >= SILENCE_LIMIT {
                        break ((close_code::POLICY, "no pong"), false);
                    }
                    silence.as_mut().reset(Instant::now() + (SILENCE_LIMIT - silent));
                }
                _ = ping.tick() => {
                    if !sender.own_frame(&PING_FRAMES, true).await {
                        return;
                    }
                }
                () = &mut shutting_down => break ((close_code::AWAY, "server going away"), false),
                Ok(()) = sent_away.changed() => {
                    break ((close_code::TRY_AGAIN_LATER, "this host's phrase list is out of date"), false);
                }
            }
        }
    };
    // The socket is not given back: the close is the last frame on it.
    if !sender.finish_begun().await {
        return;
    }
    let (code, reason) = close;
    let mut payload = code.to_be_bytes().to_vec();
    payload.extend_from_slice(reason.as_bytes());
    let writer = &mut sender.writer;
    let closing = async {
        writer.write_all(&frame(opcode::CLOSE, &payload)).await?;
        if !peer_closed {
            // Wait for the peer's close (or its end) so our frame is not lost to a reset
            // for data it still had in flight.
            writer.shutdown().await?;
            let mut scratch = [0u8; 512];
            while reader.read(&mut scratch).await? > 0 {}
        }
        Ok::<_, io::Error>(())
    };
    if let Ok(Ok(())) = timeout(Duration::from_secs(1), closing).await {
        abort.armed = false;
    }
}

/// Resets the connection when the session ends any other way than a close both sides
/// saw through: a peer cut off for not reading, or for silence, or that left. Closed
/// gracefully, the kernel keeps what the peer never took (up to the send buffer, some
/// 400 KB) in an orphan socket until its probes give up, minutes later, where no cap,
/// descriptor or gauge of the host counts it.
struct Abort<'a> {
    stream: &'a SharedWrite,
    armed: bool,
}

impl Drop for Abort<'_> {
    fn drop(&mut self) {
        if self.armed {
            let _ =
                rustix::net::sockopt::set_socket_linger(self.stream.stream(), Some(Duration::ZERO));
        }
    }
}

/// Takes the socket out of the fan-out when its session ends.
struct Leave<'a>(&'a Hub, &'a Peer);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.leave(self.1);
    }
}

/// What a session writes with: the socket's own writes, taken over from the fan-out.
struct Sender<'a> {
    hub: &'a Hub,
    peer: &'a Peer,
    writer: &'a SharedWrite,
    deadline: Pin<Box<Sleep>>,
    metrics: &'a Metrics,
}

impl Sender<'_> {
    /// Takes the socket over and writes the rest of a message the fan-out began.
    async fn finish_begun(&mut self) -> bool {
        let Some((update, written)) = self.peer.take() else {
            return true;
        };
        let sent = self.send(&update.text.frame()[written..], true).await;
        self.peer.sent(update.version);
        sent
    }

    /// Writes `frame` (a ping, a pong), then gives the socket back.
    async fn own_frame(&mut self, frame: &[u8], counted: bool) -> bool {
        self.finish_begun().await && self.send(frame, counted).await && self.catch_up(false).await
    }

    /// Writes what the browser is missing, then gives the socket back to the fan-out.
    /// The `first` time, the version the browser came with may be another process's.
    async fn catch_up(&mut self, mut first: bool) -> bool {
        loop {
            if !self.finish_begun().await {
                return false;
            }
            if !first && self.peer.give_back(|| self.hub.newest(), None) {
                return true;
            }
            let mut listless_at = None;
            match self.hub.catch_up(self.peer.have()) {
                Catchup::Nothing(version) => self.peer.sent(version),
                Catchup::NoList(version) => {
                    self.peer.has_none();
                    listless_at = Some(version);
                }
                Catchup::Changes(missed) => {
                    for update in missed {
                        if !self.send(update.text.frame(), true).await {
                            return false;
                        }
                        self.peer.sent(update.version);
                    }
                }
                Catchup::Snapshot(version, text) => {
                    // Fell behind, or missed versions: the whole list is cheaper to get right.
                    if !first {
                        self.metrics.socket_resnapshots.inc();
                    }
                    if !self.send(text.frame(), true).await {
                        return false;
                    }
                    self.peer.sent(version);
                }
            }
            if self.peer.give_back(|| self.hub.newest(), listless_at) {
                return true;
            }
            first = false;
        }
    }

    async fn send(&mut self, frame: &[u8], counted: bool) -> bool {
        let sent = send_frame(&mut self.writer, self.deadline.as_mut(), frame).await;
        if sent && counted {
            self.metrics.socket_messages.inc();
        }
        sent
    }
}

/// Sends one whole frame, giving up on a peer that does not take it within
/// [`SEND_TIMEOUT`]. The deadline is set only once the socket is full: most writes
/// finish at once, and a timer for each would cost more than the rest of the send.
async fn send_frame<W: AsyncWrite + Unpin>(
    writer: &mut W,
    mut deadline: Pin<&mut Sleep>,
    frame: &[u8],
) -> bool {
    let (mut rest, mut armed) = (frame, false);
    poll_fn(|cx| {
        loop {
            let progress = if rest.is_empty() {
                match Pin::new(&mut *writer).poll_flush(cx) {
                    Poll::Ready(flushed) => return Poll::Ready(flushed.is_ok()),
                    Poll::Pending => None,
                }
            } else {
                match Pin::new(&mut *writer).poll_write(cx, rest) {
                    Poll::Ready(Ok(0) | Err(_)) => return Poll::Ready(false),
                    Poll::Ready(Ok(written)) => Some(written),
                    Poll::Pending => None,
                }
            };
            match progress {
                Some(written) => rest = &rest[written..],
                None => {
                    if !armed {
                        deadline.as_mut().reset(Instant::now() + SEND_TIMEOUT);
                        armed = true;
                    }
                    return deadline.as_mut().poll(cx).map(|()| false);
                }
            }
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feed::{Change, Feed, Phrase};
    use crate::net::shared::SharedStream;
    use std::sync::Arc;
    use tokio::time::Instant;

    #[test]
    fn the_handshake_answers_the_key_as_the_rfc_does() {
        // RFC 6455, 1.3's example.
        assert_eq!(
            derive_accept_key(b"dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
    }

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

    /// The next text message the client is sent, whole, within ten seconds.
    async fn next_message(client: &mut (impl AsyncRead + Unpin)) -> serde_json::Value {
        loop {
            let (code, payload) = timeout(Duration::from_secs(10), frame(client))
                .await
                .expect("the next message whole and in time")
                .expect("a frame");
            if code == opcode::TEXT {
                return serde_json::from_slice(&payload).unwrap();
            }
        }
    }

    /// A feed of one phrase, the version it starts at, and a hub following it.
    fn started() -> (Feed, u64, Arc<Metrics>, Hub) {
        let feed = Feed::new();
        let start = feed.replace(vec![phrase(0)]).version;
        let metrics = Arc::new(Metrics::new());
        let hub = Hub::start(feed.clone(), metrics.socket_messages.clone());
        (feed, start, metrics, hub)
    }

    /// A session on a loopback socket that holds little, and the client's end.
    async fn connect(
        hub: &Hub,
        metrics: &Arc<Metrics>,
        since: Option<u64>,
    ) -> (tokio::net::TcpStream, tokio::task::JoinHandle<()>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(2048).unwrap();
        let client = socket
            .connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        rustix::net::sockopt::set_socket_send_buffer_size(&server, 2048).unwrap();
        let session = {
            let (hub, metrics) = (hub.clone(), metrics.clone());
            tokio::spawn(async move {
                let server = SharedStream::new(server);
                let stream = server.write_side().clone();
                session(
                    stream,
                    server,
                    hub,
                    since,
                    CancellationToken::new(),
                    &metrics,
                )
                .await;
            })
        };
        (client, session)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_socket_gets_every_change_in_order_whoever_writes_it() {
        let (feed, start, metrics, hub) = started();
        // Enough sockets for the fan-out to share them between tasks; one in ten reads
        // late, so its socket fills and its task takes over, mid-message at times.
        let mut clients = Vec::new();
        for _ in 0..300 {
            clients.push(connect(&hub, &metrics, Some(start)).await);
        }
        // Every tenth change a message larger than a socket holds, so writes stop halfway.
        for n in 1..=300 {
            let batch = if n % 10 == 0 { 40 } else { 1 };
            feed.apply(
                (0..batch)
                    .map(|k| Change::Upsert {
                        phrase: phrase(n * 100 + k),
                    })
                    .collect(),
            );
            if n % 10 == 0 {
                tokio::task::yield_now().await;
            }
        }
        let target = feed.current().version;
        let readers = clients
            .into_iter()
            .enumerate()
            .map(|(i, (mut client, session))| {
                tokio::spawn(async move {
                    if i % 10 == 0 {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    let mut have = start;
                    while have != target {
                        let message = next_message(&mut client).await;
                        if message["type"] == "changes" {
                            assert_eq!(
                                message["from"], have,
                                "socket {i}: a change skipped or repeated"
                            );
                        }
                        have = message["version"].as_u64().unwrap();
                    }
                    session.abort();
                })
            })
            // All reading at once: one after another, the last waited for the others, and
            // the host rightly gave up on sockets nobody read for ten seconds.
            .collect::<Vec<_>>();
        for reader in readers {
            reader.await.unwrap();
        }
    }

    fn phrase(n: u64) -> Phrase {
        Phrase {
            id: format!("p{n:05}"),
            word: format!("BURST {n}"),
            name: "Writer".into(),
            created: n,
            edited: 0,
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_message_the_fan_out_could_only_begin_is_finished_before_the_next() {
        let (feed, start, metrics, hub) = started();
        let (mut client, session) = connect(&hub, &metrics, Some(start)).await;
        // A first change read, and a moment for its task to give the socket back, so the
        // fan-out writes the next one.
        feed.apply(vec![Change::Upsert { phrase: phrase(1) }]);
        let first = next_message(&mut client).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        // As many phrases as a change may carry, with long names: some 110 KB, more than
        // both ends of the socket hold and than one write of the kernel's takes, while the
        // client is not reading, so the fan-out writes only part of it.
        feed.apply(
            (0..crate::feed::MAX_DELTA as u64)
                .map(|k| Change::Upsert {
                    phrase: Phrase {
                        name: "W".repeat(120),
                        ..phrase(1000 + k)
                    },
                })
                .collect(),
        );
        feed.apply(vec![Change::Upsert { phrase: phrase(2) }]);
        tokio::time::sleep(Duration::from_millis(50)).await;
        let mut have = first["version"].as_u64().unwrap();
        let target = feed.current().version;
        while have != target {
            let message = next_message(&mut client).await;
            assert_eq!(message["type"], "changes");
            assert_eq!(message["from"], have, "a change skipped or repeated");
            have = message["version"].as_u64().unwrap();
        }
        session.abort();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_reader_that_falls_behind_a_burst_of_a_thousand_changes_converges_by_a_snapshot() {
        let (feed, _, metrics, hub) = started();
        let (mut client, session) = connect(&hub, &metrics, None).await;
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
            metrics.socket_resnapshots.get() >= 1,
            "it fell behind and was sent the first page again"
        );
        assert!(
            frames < 1000,
            "it was not sent every change ({frames} frames)"
        );
        session.abort();
    }
}
