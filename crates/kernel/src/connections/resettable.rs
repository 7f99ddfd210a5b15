//! A connection's stream that test mode can reset instead of closing
//! (`resetBeforeAnswer`): the service raises the flag, and the close that
//! follows sends a TCP RST (`SO_LINGER` 0) rather than an orderly FIN, so the
//! client reads "connection reset by peer", as behind a crashed proxy.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

pub struct Resettable {
    stream: TcpStream,
    reset: Arc<AtomicBool>,
}

impl Resettable {
    /// The stream, and the flag that makes its close a reset.
    pub fn new(stream: TcpStream) -> (Self, Arc<AtomicBool>) {
        let reset = Arc::new(AtomicBool::new(false));
        (Self { stream, reset: reset.clone() }, reset)
    }

    fn resetting(&self) -> bool {
        self.reset.load(Ordering::Relaxed)
    }
}

impl Drop for Resettable {
    fn drop(&mut self) {
        if self.resetting()
            && let Err(error) = self.stream.set_zero_linger()
        {
            tracing::warn!(%error, "a test-mode reset could not set SO_LINGER; the connection is closed instead");
        }
    }
}

impl AsyncRead for Resettable {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Resettable {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    /// No FIN before a reset: the close on drop is the connection's end.
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.resetting() {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
