//! The floor for the live fan-out on this machine: the least a tokio server can do to
//! send one change to every WebSocket. It accepts sockets on any path, and on
//! `GET /change/<n>` encodes one `changes` message the size and shape of the host's
//! (one phrase added) into a frame once and hands the same bytes to every socket
//! through a `tokio::sync::broadcast` channel. No list, no versions, no limits, no
//! reading from the sockets: what is left is the channel and the writes.
//!
//! `scripts/bench fanout` runs ws_bench against the host and then against this, with
//! the same clients, and reports the host's delivery time as a multiple of this one.
//!
//! Usage: cargo run --release --example fanout_floor -- <port> <phrases in the list>

use std::net::{Ipv4Addr, SocketAddr};

use bytes::Bytes;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::broadcast;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [port, count] = args.as_slice() else {
        return Err("usage: fanout_floor <port> <phrases in the list>".into());
    };
    let count: usize = count.parse()?;
    // The host's backlog: 10,000 clients connecting at once overflow tokio's default.
    let socket = TcpSocket::new_v4()?;
    socket.set_reuseaddr(true)?;
    socket.bind(SocketAddr::from((Ipv4Addr::UNSPECIFIED, port.parse()?)))?;
    let listener: TcpListener = socket.listen(4096)?;
    let (frames, _) = broadcast::channel::<Bytes>(64);
    println!("fanout_floor listening on {}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let frames = frames.clone();
        tokio::spawn(async move {
            let _ = serve(stream, frames, count).await;
        });
    }
}

async fn serve(
    mut stream: TcpStream,
    frames: broadcast::Sender<Bytes>,
    count: usize,
) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let head = read_head(&mut stream).await?;
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let key = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("sec-websocket-key")
            .then(|| value.trim().to_owned())
    });
    if let Some(key) = key {
        // Subscribe before answering, so no change sent after the client saw the
        // upgrade can be missed.
        let mut receiver = frames.subscribe();
        let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(key.as_bytes());
        stream
            .write_all(
                format!(
                    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n"
                )
                .as_bytes(),
            )
            .await?;
        // Reading only to see the client leave, so a second run starts on an empty server.
        let (mut reader, mut writer) = stream.split();
        let mut scratch = [0u8; 512];
        loop {
            tokio::select! {
                frame = receiver.recv() => match frame {
                    Ok(frame) => writer.write_all(&frame).await?,
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return Ok(()),
                },
                read = reader.read(&mut scratch) => if read? == 0 {
                    return Ok(());
                },
            }
        }
    }
    let body = if let Some(round) = path.strip_prefix("/change/") {
        let round: u64 = round.parse().unwrap_or(0);
        let _ = frames.send(text_frame(&message(round, count)));
        String::new()
    } else {
        // ws_bench asks which version the list is at, to connect as a browser that has it.
        r#"{"version":1}"#.to_owned()
    };
    stream
        .write_all(
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
        .await?;
    stream.shutdown().await
}

/// The request line and headers, up to the blank line.
async fn read_head(stream: &mut TcpStream) -> std::io::Result<String> {
    let mut head = Vec::with_capacity(1024);
    let mut buffer = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = stream.read(&mut buffer).await?;
        if read == 0 || head.len() > 16 * 1024 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        head.extend_from_slice(&buffer[..read]);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

/// What the host sends when another process adds `BENCH ROUND <round>` to its store
/// (ws_bench's change), byte for byte but for the version numbers.
fn message(round: u64, count: usize) -> String {
    format!(
        r#"{{"type":"changes","from":{},"version":{},"count":{},"changes":[{{"op":"upsert","phrase":{{"id":"zzBench{round:013}","word":"BENCH ROUND {round}","name":"Bench","created":{}}}}}]}}"#,
        round + 1,
        round + 2,
        count + round as usize + 1,
        count + round as usize + 1,
    )
}

/// An unmasked, final text frame: what a server sends.
fn text_frame(text: &str) -> Bytes {
    let payload = text.as_bytes();
    let mut frame = Vec::with_capacity(payload.len() + 10);
    frame.push(0x81);
    match payload.len() {
        len @ 0..=125 => frame.push(len as u8),
        len @ 126..=0xFFFF => {
            frame.push(126);
            frame.extend_from_slice(&(len as u16).to_be_bytes());
        }
        len => {
            frame.push(127);
            frame.extend_from_slice(&(len as u64).to_be_bytes());
        }
    }
    frame.extend_from_slice(payload);
    Bytes::from(frame)
}
