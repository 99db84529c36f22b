//! A change as every socket is sent it: encoded and framed once by the hub, then written
//! as the same bytes by the fan-out, or by a socket's own task when it fell behind.

use bytes::Bytes;

use crate::live::frames::{frame, opcode};

/// A message as browsers receive it, with its JSON encoded once.
#[derive(Debug, Clone)]
pub struct Update {
    /// The version the changes apply to.
    pub from: u64,
    /// The version after them.
    pub version: u64,
    /// `{"type":"changes",...}` ready to send.
    pub text: Message,
}

/// A JSON text message as every socket sends it: framed once, so each socket's share of
/// a change is one write of the same bytes.
#[derive(Debug, Clone)]
pub struct Message {
    frame: Bytes,
    /// Where the JSON starts, after the frame's header.
    json_at: usize,
}

impl Message {
    pub(super) fn new(json: &str) -> Message {
        let frame = frame(opcode::TEXT, json.as_bytes());
        Message {
            json_at: frame.len() - json.len(),
            frame: frame.into(),
        }
    }

    /// The whole frame, header and JSON.
    pub fn frame(&self) -> &[u8] {
        &self.frame
    }

    /// The JSON.
    pub fn as_str(&self) -> &str {
        // Made from a `&str` in `new`, so the bytes past the header are UTF-8.
        std::str::from_utf8(&self.frame[self.json_at..]).unwrap_or_default()
    }
}
