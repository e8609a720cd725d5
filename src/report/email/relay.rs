//! One connection to the SMTP relay, with a bound on what premarket reads from it.
//!
//! lettre's SMTP client reads each reply with a buffered `read_line` and checks the line's
//! length only once the line is whole: a relay whose greeting never ends is read without
//! bound (1.5-2.6 GB in 5 s before this, and the process aborted without a report). lettre
//! keeps its protocol and TLS here, but reads through [`Capped`], a TCP stream that refuses to
//! yield more than [`READ_CAP`] bytes on one connection: whatever the relay sends, no line
//! lettre buffers grows past it. The cap counts the bytes on the wire (under TLS, a reply
//! cannot be told apart from the handshake there), so it is a budget for the whole exchange:
//! a greeting, EHLO's extensions and a handful of short replies take a few KB, a TLS
//! handshake a few more, and lettre itself refuses a reply over 100,000 bytes.
//!
//! Each attempt is one connection, opened here and closed with QUIT after its one message:
//! a connection kept between messages would carry its budget over. Implicit TLS (`tls: tls`)
//! is made here over the capped stream with lettre's own TLS settings (the CA file, the
//! platform verifier) before lettre reads the greeting; STARTTLS is lettre's, over the same
//! capped stream.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use lettre::address::Envelope;
use lettre::transport::smtp::Error as SmtpError;
use lettre::transport::smtp::authentication::{Credentials, Mechanism};
#[allow(deprecated)] // lettre's own network stream: the one way to its TLS before the greeting
use lettre::transport::smtp::client::AsyncNetworkStream;
use lettre::transport::smtp::client::{AsyncSmtpConnection, AsyncTokioStream, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// The most premarket reads from the relay on one connection.
pub const READ_CAP: u64 = 1 << 20;

/// How the connection is encrypted.
#[derive(Clone)]
pub enum Encryption {
    None,
    /// STARTTLS after the greeting, required.
    Starttls(TlsParameters),
    /// TLS from the first byte (SMTPS).
    Implicit(TlsParameters),
}

/// Where and how to reach the relay.
#[derive(Clone)]
pub struct Relay {
    pub host: String,
    pub port: u16,
    pub encryption: Encryption,
    pub credentials: Option<Credentials>,
}

/// Why an attempt failed: the relay's answer (lettre says whether it is permanent) or the
/// connection.
#[derive(Debug)]
pub enum Failed {
    Smtp(SmtpError),
    Connect(io::Error),
}

impl Relay {
    /// Connects, greets, encrypts and logs in as configured, sends `bytes` and quits.
    pub async fn send(&self, envelope: &Envelope, bytes: &[u8]) -> Result<(), Failed> {
        let tcp = TcpStream::connect((self.host.as_str(), self.port))
            .await
            .map_err(Failed::Connect)?;
        let peer = tcp.peer_addr().map_err(Failed::Connect)?;
        let capped = Box::new(Capped {
            inner: tcp,
            left: READ_CAP,
            peer,
        });
        let hello = ClientId::default();
        let stream: Box<dyn AsyncTokioStream> = match &self.encryption {
            Encryption::Implicit(tls) => Box::new(encrypted(capped, tls.clone(), peer).await?),
            _ => capped,
        };
        let mut conn = AsyncSmtpConnection::connect_with_transport(stream, &hello)
            .await
            .map_err(Failed::Smtp)?;
        if let Encryption::Starttls(tls) = &self.encryption {
            conn.starttls(tls.clone(), &hello)
                .await
                .map_err(Failed::Smtp)?;
        }
        if let Some(credentials) = &self.credentials {
            conn.auth(&[Mechanism::Plain, Mechanism::Login], credentials)
                .await
                .map_err(Failed::Smtp)?;
        }
        let sent = conn.send(envelope, bytes).await.map_err(Failed::Smtp);
        if sent.is_ok() {
            // Delivered once the relay said 250 to the data; a QUIT it does not answer changes
            // nothing.
            let _ = conn.quit().await;
        } else {
            conn.abort().await;
        }
        sent.map(|_| ())
    }
}

/// TLS from the first byte over the capped stream, with lettre's TLS settings.
#[allow(deprecated)]
async fn encrypted(
    capped: Box<Capped>,
    tls: TlsParameters,
    peer: SocketAddr,
) -> Result<Encrypted, Failed> {
    let mut stream = AsyncNetworkStream::use_existing_tokio1(capped);
    stream.upgrade_tls(tls).await.map_err(Failed::Smtp)?;
    Ok(Encrypted {
        inner: stream,
        peer,
    })
}

/// The relay's TCP stream, refusing to read more than its budget.
#[derive(Debug)]
struct Capped {
    inner: TcpStream,
    left: u64,
    peer: SocketAddr,
}

impl AsyncRead for Capped {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.left == 0 {
            return Poll::Ready(Err(io::Error::other(format!(
                "the relay sent more than {} KiB on one connection without ending its reply (a line that never ends); nothing more is read from it",
                READ_CAP >> 10
            ))));
        }
        // Never more than the budget into the caller's buffer.
        let room = usize::try_from(self.left)
            .unwrap_or(usize::MAX)
            .min(buf.remaining());
        let mut limited = ReadBuf::new(buf.initialize_unfilled_to(room));
        let polled = Pin::new(&mut self.inner).poll_read(cx, &mut limited);
        let n = limited.filled().len();
        if let Poll::Ready(Ok(())) = polled {
            buf.advance(n);
            self.left -= n as u64;
        }
        polled
    }
}

impl AsyncWrite for Capped {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, data)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

impl AsyncTokioStream for Capped {
    fn peer_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.peer)
    }
}

/// lettre's TLS stream (futures' I/O traits) as the tokio stream its client takes.
#[allow(deprecated)]
#[derive(Debug)]
struct Encrypted {
    inner: AsyncNetworkStream,
    peer: SocketAddr,
}

#[allow(deprecated)]
impl AsyncRead for Encrypted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let unfilled = buf.initialize_unfilled();
        match futures::io::AsyncRead::poll_read(Pin::new(&mut self.inner), cx, unfilled) {
            Poll::Ready(Ok(n)) => {
                buf.advance(n);
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }
}

#[allow(deprecated)]
impl AsyncWrite for Encrypted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        futures::io::AsyncWrite::poll_write(Pin::new(&mut self.inner), cx, data)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        futures::io::AsyncWrite::poll_flush(Pin::new(&mut self.inner), cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        futures::io::AsyncWrite::poll_close(Pin::new(&mut self.inner), cx)
    }
}

impl AsyncTokioStream for Encrypted {
    fn peer_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.peer)
    }
}
