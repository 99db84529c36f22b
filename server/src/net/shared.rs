//! A connection's socket, its write side shared: hyper and the front read and write it
//! as any socket, and a WebSocket's session and the live fan-out write it after the
//! upgrade, from whichever task runs them (`live::peers`).

use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

/// The write side of the socket a request came on (a request extension): what a
/// WebSocket's messages are written to once it is upgraded.
#[derive(Clone)]
pub struct SharedWrite(Arc<OwnedWriteHalf>);

impl SharedWrite {
    pub fn stream(&self) -> &TcpStream {
        (*self.0).as_ref()
    }
}

/// A socket read as tokio reads it (a short read tells it the socket is drained, so
/// the next read waits instead of asking the kernel again), written through its shared
/// write side.
pub struct SharedStream {
    read: OwnedReadHalf,
    write: SharedWrite,
}

impl SharedStream {
    pub fn new(stream: TcpStream) -> Self {
        let (read, write) = stream.into_split();
        Self {
            read,
            write: SharedWrite(Arc::new(write)),
        }
    }

    pub fn write_side(&self) -> &SharedWrite {
        &self.write
    }
}

impl AsyncRead for SharedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().read).poll_read(cx, buf)
    }
}

impl AsyncWrite for SharedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut &self.write).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut &self.write).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut &self.write).poll_shutdown(cx)
    }
}

/// Writes without `&mut`: the session and the fan-out each hold the side.
impl AsyncWrite for &SharedWrite {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        poll_write_with(self.stream(), cx, |stream| stream.try_write(buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        poll_write_with(self.stream(), cx, |stream| stream.try_write_vectored(bufs))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        let shut = rustix::net::shutdown(self.stream(), rustix::net::Shutdown::Write);
        Poll::Ready(shut.map_err(Into::into))
    }
}

/// Writes with `write` once the socket has room, as `AsyncWrite::poll_write` would.
fn poll_write_with(
    stream: &TcpStream,
    cx: &mut Context<'_>,
    write: impl Fn(&TcpStream) -> io::Result<usize>,
) -> Poll<io::Result<usize>> {
    loop {
        ready!(stream.poll_write_ready(cx))?;
        match write(stream) {
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
            written => return Poll::Ready(written),
        }
    }
}
