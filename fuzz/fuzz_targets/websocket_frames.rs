//! The host's WebSocket frame reader on whatever bytes a client sends: it never panics,
//! reads a length it is told without allocating for it, and agrees with a plain model of
//! RFC 6455 (as the host restricts it) on why it stopped and which ping it answers.
#![no_main]

#[path = "../../server/src/live/frames.rs"]
#[allow(dead_code)]
mod frames;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// Why reading stopped, comparable.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Close,
    TooBig,
    Broken,
    NotText,
    Flood,
    Gone,
}

fuzz_target!(|input: &[u8]| {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    let runtime = RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime with no drivers needs no resources")
    });
    let inbox = frames::Inbox::new();
    let mut reader = input;
    let heard = runtime.block_on(frames::read_frames(&mut reader, &inbox));
    let verdict = match heard {
        frames::Heard::Close => Verdict::Close,
        frames::Heard::TooBig => Verdict::TooBig,
        frames::Heard::Broken => Verdict::Broken,
        frames::Heard::NotText => Verdict::NotText,
        frames::Heard::Flood => Verdict::Flood,
        frames::Heard::Gone => Verdict::Gone,
    };
    let pong = inbox.pong.lock().unwrap_or_else(|e| e.into_inner()).take();
    assert_eq!((verdict, pong), model(input));
});

/// The same rules written for a byte slice: frames must be masked with no reserved bits,
/// and a 64-bit length has its top bit clear; control frames are final and at most 125
/// bytes; a close frame is empty or a code a peer may send (1000–1003, 1007–1014,
/// 3000–4999) and a UTF-8 reason; a data message (its fragments added up) is at most
/// `MAX_FRAME`, and a text one UTF-8; only the latest ping waits for its pong; more than
/// `FRAMES_PER_WINDOW` frames is a flood (one input arrives well within the window).
fn model(mut bytes: &[u8]) -> (Verdict, Option<Vec<u8>>) {
    fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        let (taken, rest) = bytes.split_at_checked(n)?;
        *bytes = rest;
        Some(taken)
    }
    let mut pong = None;
    let mut open_message: Option<u64> = None;
    let mut text: Option<Vec<u8>> = None;
    let mut frames = 0;
    loop {
        let Some(&[first, second]) = take(&mut bytes, 2) else {
            return (Verdict::Gone, pong);
        };
        if first & 0x70 != 0 || second & 0x80 == 0 {
            return (Verdict::Broken, pong);
        }
        let (fin, code) = (first & 0x80 != 0, first & 0x0F);
        let len = match second & 0x7F {
            126 => match take(&mut bytes, 2) {
                Some(b) => u64::from(u16::from_be_bytes([b[0], b[1]])),
                None => return (Verdict::Gone, pong),
            },
            127 => match take(&mut bytes, 8) {
                Some(b) if b[0] & 0x80 == 0 => {
                    u64::from_be_bytes(b.try_into().expect("eight bytes"))
                }
                Some(_) => return (Verdict::Broken, pong),
                None => return (Verdict::Gone, pong),
            },
            n => u64::from(n),
        };
        let Some(mask) = take(&mut bytes, 4) else {
            return (Verdict::Gone, pong);
        };
        frames += 1;
        if frames > frames::FRAMES_PER_WINDOW {
            return (Verdict::Flood, pong);
        }
        match code {
            0x8..=0xA => {
                if !fin || len > 125 {
                    return (Verdict::Broken, pong);
                }
                let Some(payload) = take(&mut bytes, len as usize) else {
                    return (Verdict::Gone, pong);
                };
                let unmasked: Vec<u8> = payload
                    .iter()
                    .enumerate()
                    .map(|(i, b)| b ^ mask[i % 4])
                    .collect();
                match code {
                    0x8 => {
                        let verdict = if unmasked.is_empty() {
                            Verdict::Close
                        } else if unmasked.len() == 1 {
                            Verdict::Broken
                        } else {
                            let code = u16::from(unmasked[0]) << 8 | u16::from(unmasked[1]);
                            let allowed = (1000..=1003).contains(&code)
                                || (1007..=1014).contains(&code)
                                || (3000..=4999).contains(&code);
                            if !allowed {
                                Verdict::Broken
                            } else if String::from_utf8(unmasked[2..].to_vec()).is_err() {
                                Verdict::NotText
                            } else {
                                Verdict::Close
                            }
                        };
                        return (verdict, pong);
                    }
                    0x9 => pong = Some(unmasked),
                    _ => {}
                }
            }
            0x0..=0x2 => {
                let so_far = match (code, open_message) {
                    (0x0, Some(so_far)) => so_far,
                    (0x0, None) | (_, Some(_)) => return (Verdict::Broken, pong),
                    (_, None) => 0,
                };
                let total = so_far.saturating_add(len);
                if total > frames::MAX_FRAME as u64 {
                    return (Verdict::TooBig, pong);
                }
                let Some(payload) = take(&mut bytes, len as usize) else {
                    return (Verdict::Gone, pong);
                };
                match code {
                    0x1 => text = Some(Vec::new()),
                    0x2 => text = None,
                    _ => {}
                }
                if let Some(text) = &mut text {
                    text.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
                }
                open_message = (!fin).then_some(total);
                if fin && text.take().is_some_and(|t| String::from_utf8(t).is_err()) {
                    return (Verdict::NotText, pong);
                }
            }
            _ => return (Verdict::Broken, pong),
        }
    }
}
