//! The WebSocket framing (RFC 6455, 5), both ways: the client's frames read with a bound
//! on memory whatever the peer sends, and the server's, each whole in one buffer (a
//! message's made once for every socket).
//! It needs only std and tokio's I/O, so the fuzz target `websocket_frames` compiles this
//! file alone.

use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt as _};
use tokio::sync::Notify;
use tokio::time::Instant;

/// Browsers send nothing but control frames; anything larger is abuse.
pub const MAX_FRAME: usize = 4 * 1024;
/// Frames a client may send per [`FRAME_WINDOW`]: a browser sends one pong per ping.
/// More is a flood, closed whether or not the peer reads what it is sent.
pub(super) const FRAMES_PER_WINDOW: u32 = 100;
pub(super) const FRAME_WINDOW: Duration = Duration::from_secs(10);

/// Frame opcodes (RFC 6455, 5.2).
pub(super) mod opcode {
    pub const CONTINUATION: u8 = 0x0;
    pub const TEXT: u8 = 0x1;
    pub const BINARY: u8 = 0x2;
    pub const CLOSE: u8 = 0x8;
    pub const PING: u8 = 0x9;
    pub const PONG: u8 = 0xA;
}

/// Why the read side stopped.
pub(super) enum Heard {
    /// The peer sent a close frame.
    Close,
    /// A message over [`MAX_FRAME`].
    TooBig,
    /// Something a client may not send (unmasked or reserved bits, a bad opcode, a
    /// length with its top bit set, a close frame of one byte or with a code no one sends).
    Broken,
    /// A text message, or a close frame's reason, that is not UTF-8.
    NotText,
    /// More than [`FRAMES_PER_WINDOW`] frames in a window.
    Flood,
    /// The connection ended or failed.
    Gone,
}

/// What the read side tells the write side.
pub(super) struct Inbox {
    /// When the session began: `last_heard_ms` counts from it.
    started: Instant,
    /// Milliseconds after `started` that the peer last sent a frame.
    last_heard_ms: AtomicU64,
    /// The payload of the latest ping, not yet answered: one slot, so a flood of pings
    /// costs nothing more than one.
    pub(super) pong: Mutex<Option<Vec<u8>>>,
    /// Wakes the write side when a ping is waiting in `pong`.
    pub(super) pong_due: Notify,
}

impl Inbox {
    pub(super) fn new() -> Self {
        Self {
            started: Instant::now(),
            last_heard_ms: AtomicU64::new(0),
            pong: Mutex::new(None),
            pong_due: Notify::new(),
        }
    }

    fn heard(&self) {
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_heard_ms.store(now, Ordering::Relaxed);
    }

    pub(super) fn silent_for(&self) -> Duration {
        let heard = Duration::from_millis(self.last_heard_ms.load(Ordering::Relaxed));
        self.started.elapsed().saturating_sub(heard)
    }
}

/// Reads the client's frames until one ends the session. Data is counted and dropped
/// (browsers send none), a text message once it is known to be UTF-8 (RFC 6455, 8.1);
/// pings are queued for the write side in one slot.
pub(super) async fn read_frames<R: AsyncRead + Unpin>(reader: &mut R, inbox: &Inbox) -> Heard {
    match read_loop(reader, inbox).await {
        Ok(heard) => heard,
        Err(_) => Heard::Gone,
    }
}

async fn read_loop<R: AsyncRead + Unpin>(reader: &mut R, inbox: &Inbox) -> io::Result<Heard> {
    // The length so far of a data message still arriving in fragments.
    let mut open_message: Option<u64> = None;
    // A text message's bytes so far, unmasked, to be checked whole (at most MAX_FRAME,
    // and only while one arrives: browsers send none).
    let mut text: Option<Vec<u8>> = None;
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
            // Its most significant bit must be 0 (RFC 6455, 5.2).
            127 => match reader.read_u64().await? {
                len if len >> 63 == 0 => len,
                _ => return Ok(Heard::Broken),
            },
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
                for (i, byte) in payload.iter_mut().enumerate() {
                    *byte ^= mask[i % 4];
                }
                match code {
                    opcode::CLOSE => return Ok(close_heard(payload)),
                    opcode::PING => {
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
                if code == opcode::TEXT {
                    text = Some(Vec::new());
                } else if code == opcode::BINARY {
                    text = None;
                }
                match &mut text {
                    Some(bytes) => {
                        let start = bytes.len();
                        bytes.resize(start + len as usize, 0);
                        reader.read_exact(&mut bytes[start..]).await?;
                        for (i, byte) in bytes[start..].iter_mut().enumerate() {
                            *byte ^= mask[i % 4];
                        }
                    }
                    None => discard(reader, len).await?,
                }
                open_message = (!fin).then_some(total);
                if fin
                    && text
                        .take()
                        .is_some_and(|bytes| std::str::from_utf8(&bytes).is_err())
                {
                    return Ok(Heard::NotText);
                }
            }
            _ => return Ok(Heard::Broken),
        }
    }
}

/// A close frame's (unmasked) payload judged: empty, or a code a peer may send and a
/// reason in UTF-8 (RFC 6455, 5.5.1 and 7.4).
fn close_heard(payload: &[u8]) -> Heard {
    match payload {
        [] => Heard::Close,
        [_] => Heard::Broken,
        [high, low, reason @ ..] => {
            let code = u16::from_be_bytes([*high, *low]);
            if !matches!(code, 1000..=1003 | 1007..=1014 | 3000..=4999) {
                Heard::Broken
            } else if std::str::from_utf8(reason).is_err() {
                Heard::NotText
            } else {
                Heard::Close
            }
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

/// One unmasked frame, header and payload together, sent in one write: a message is
/// framed once for every socket.
pub(super) fn frame(code: u8, payload: &[u8]) -> Vec<u8> {
    let len = payload.len();
    let mut frame = Vec::with_capacity(10 + len);
    frame.push(0x80 | code);
    match len {
        len if len < 126 => frame.push(len as u8),
        len if len <= usize::from(u16::MAX) => {
            frame.push(126);
            frame.extend_from_slice(&(len as u16).to_be_bytes());
        }
        len => {
            frame.push(127);
            frame.extend_from_slice(&(len as u64).to_be_bytes());
        }
    }
    frame.extend_from_slice(payload);
    frame
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_close_frame_is_judged_by_its_code_and_its_reason() {
        let with = |code: u16, reason: &[u8]| [&code.to_be_bytes()[..], reason].concat();
        assert!(matches!(close_heard(&[]), Heard::Close));
        assert!(matches!(close_heard(&[3]), Heard::Broken));
        for code in [1000, 1001, 1003, 1007, 1011, 1014, 3000, 4999] {
            assert!(
                matches!(close_heard(&with(code, b"bye")), Heard::Close),
                "{code}"
            );
        }
        for code in [0, 999, 1004, 1005, 1006, 1015, 2999, 5000, u16::MAX] {
            assert!(
                matches!(close_heard(&with(code, b"")), Heard::Broken),
                "{code}"
            );
        }
        assert!(matches!(
            close_heard(&with(1000, b"\xff\xfe")),
            Heard::NotText
        ));
    }

    /// A client's frame: masked, as a browser's are.
    fn masked(first: u8, payload: &[u8]) -> Vec<u8> {
        let mask = [0x37, 0xfa, 0x21, 0x3d];
        let mut frame = vec![first, 0x80 | payload.len() as u8];
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        frame
    }

    #[tokio::test]
    async fn a_text_message_not_in_utf8_is_not_text_even_split_across_fragments() {
        let read = |frames: Vec<Vec<u8>>| async move {
            read_frames(&mut &frames.concat()[..], &Inbox::new()).await
        };
        let dino = "🦖".as_bytes();
        // Whole, and cut inside its character: UTF-8 once the message is.
        assert!(matches!(read(vec![masked(0x81, dino)]).await, Heard::Gone));
        let (head, tail) = dino.split_at(2);
        let split = vec![masked(0x01, head), masked(0x80, tail)];
        assert!(matches!(read(split).await, Heard::Gone));
        assert!(matches!(
            read(vec![masked(0x81, b"\xff\xfe\xfd")]).await,
            Heard::NotText
        ));
        let cut = vec![masked(0x01, head), masked(0x80, b"x")];
        assert!(matches!(read(cut).await, Heard::NotText));
        // Binary data is anything.
        assert!(matches!(
            read(vec![masked(0x82, b"\xff\xfe")]).await,
            Heard::Gone
        ));
    }

    #[tokio::test]
    async fn a_length_with_its_top_bit_set_is_broken_not_big() {
        let mut frame = vec![0x82, 0x80 | 127];
        frame.extend_from_slice(&(1u64 << 63).to_be_bytes());
        frame.extend_from_slice(&[0; 4]);
        let heard = read_frames(&mut &frame[..], &Inbox::new()).await;
        assert!(matches!(heard, Heard::Broken));
    }

    #[test]
    fn a_frame_has_the_header_of_its_length_at_every_boundary() {
        let heads: [(usize, &[u8]); 5] = [
            (0, &[0x81, 0]),
            (125, &[0x81, 125]),
            (126, &[0x81, 126, 0, 126]),
            (65_535, &[0x81, 126, 0xff, 0xff]),
            (65_536, &[0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0]),
        ];
        for (len, head) in heads {
            let payload = vec![b'x'; len];
            let made = frame(opcode::TEXT, &payload);
            assert_eq!(&made[..head.len()], head, "{len} bytes");
            assert_eq!(&made[head.len()..], payload, "{len} bytes");
        }
    }
}
