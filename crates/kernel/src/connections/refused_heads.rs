//! hyper answers a request head it cannot take by itself, before the
//! application sees the request: a request target over 64 KiB (the longest
//! the `http` crate represents) gets a bare 414, a head over hyper's buffer a
//! bare 431, a head that is not HTTP/1.1 a bare 400; each with
//! `connection: close` and no body. `ProblemHeads` wraps a connection's
//! stream and writes those answers as problems (`414001`, `431001`,
//! `400005`), like every other answer of the server. Shorter targets and
//! smaller heads reach the application, which refuses them with the same
//! codes at its own, lower bounds (`server::bounded_head`).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::error::{ApiError, ErrorCode};

/// The answers hyper writes of itself, each up to its first header: the
/// application's answers carry their content type first and never match.
const HYPER_REFUSALS: [(&[u8], ErrorCode, &str); 3] = [
    (
        b"HTTP/1.1 414 URI Too Long\r\nconnection: close\r\ncontent-length: 0\r\n",
        ErrorCode::UriTooLong,
        "the request target is longer than 64 KiB",
    ),
    (
        b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\n",
        ErrorCode::HeadersTooLarge,
        "the request head is larger than the server reads",
    ),
    (
        b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n",
        ErrorCode::MalformedRequest,
        "the request head is not HTTP/1.1",
    ),
];

/// A connection's stream whose hyper-made refusals go out as problems.
pub struct ProblemHeads<S> {
    inner: S,
    /// A problem being written in place of hyper's answer: its bytes, how
    /// many are written, and how many of hyper's it stands for.
    replacing: Option<(Vec<u8>, usize, usize)>,
}

impl<S> ProblemHeads<S> {
    pub fn new(inner: S) -> Self {
        Self { inner, replacing: None }
    }
}

/// The problem answer standing for `head`, when it is one of hyper's refusals.
fn problem_for(head: &[u8]) -> Option<Vec<u8>> {
    let (_, code, detail) = HYPER_REFUSALS.iter().find(|(prefix, ..)| head.starts_with(prefix))?;
    let body = ApiError::new(*code, *detail).problem_json();
    let status = code.status();
    let answer = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/problem+json\r\nx-content-type-options: nosniff\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        status.as_u16(),
        status.canonical_reason().unwrap_or_default(),
        body.len()
    );
    Some(answer.into_bytes())
}

impl<S: AsyncWrite + Unpin> ProblemHeads<S> {
    /// Writes the problem under way; once it is out, tells hyper its own
    /// answer was.
    fn poll_replacing(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let Some((bytes, written, stands_for)) = self.replacing.as_mut() else { return Poll::Ready(Ok(0)) };
        while *written < bytes.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        let stands_for = *stands_for;
        self.replacing = None;
        Poll::Ready(Ok(stands_for))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for ProblemHeads<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for ProblemHeads<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if self.replacing.is_none() {
            match problem_for(buf) {
                Some(problem) => self.replacing = Some((problem, 0, buf.len())),
                None => return Pin::new(&mut self.inner).poll_write(cx, buf),
            }
        }
        self.poll_replacing(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        // hyper's refusal is its head alone, in the first slice.
        let first = bufs.iter().find(|b| !b.is_empty()).map_or(&[][..], |b| &b[..]);
        if self.replacing.is_some() || problem_for(first).is_some() {
            return self.poll_write(cx, first);
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
