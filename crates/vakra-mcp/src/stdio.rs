//! The stdio transport's input: stdin, watched for its end.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};
use tokio_util::sync::CancellationToken;

/// A reader that cancels a token when its input ends (or fails).
pub(crate) struct UntilEof<R> {
    inner: R,
    ended: CancellationToken,
}

impl<R> UntilEof<R> {
    pub(crate) fn new(inner: R, ended: CancellationToken) -> Self {
        Self { inner, ended }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for UntilEof<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        match &polled {
            Poll::Ready(Ok(())) if buf.filled().len() == before && buf.remaining() > 0 => {
                self.ended.cancel();
            }
            Poll::Ready(Err(_)) => self.ended.cancel(),
            _ => {}
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn the_token_is_cancelled_at_the_end_only() {
        let ended = CancellationToken::new();
        let mut reader = UntilEof::new(&b"abc"[..], ended.clone());
        let mut buf = [0u8; 2];
        assert_eq!(reader.read(&mut buf).await.unwrap(), 2);
        assert!(!ended.is_cancelled());
        assert_eq!(reader.read(&mut buf).await.unwrap(), 1);
        assert!(!ended.is_cancelled());
        assert_eq!(reader.read(&mut buf).await.unwrap(), 0);
        assert!(ended.is_cancelled());
    }
}
