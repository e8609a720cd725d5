//! How the scripted device's bytes travel besides the plain SSH session: paced packets (each
//! sent on its own, after a pause) and a TCP proxy that stops reading (a device that no longer
//! takes input).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use russh::ChannelId;
use russh::server;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends packets in order, each after its pause, from a task of its own: the SSH session writes
/// each one as it comes, so the client reads them as separate packets.
pub struct Pacer {
    tx: tokio::sync::mpsc::UnboundedSender<(Duration, Vec<u8>)>,
    /// Packets queued and not sent yet: while any are, every reply queues behind them.
    queued: Arc<AtomicUsize>,
}

impl Pacer {
    pub fn start(handle: server::Handle, channel: ChannelId) -> Pacer {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(Duration, Vec<u8>)>();
        let queued = Arc::new(AtomicUsize::new(0));
        let left = queued.clone();
        tokio::spawn(async move {
            while let Some((pause, bytes)) = rx.recv().await {
                tokio::time::sleep(pause).await;
                let sent = handle.data(channel, bytes).await.is_ok();
                left.fetch_sub(1, Ordering::SeqCst);
                if !sent {
                    return;
                }
            }
        });
        Pacer { tx, queued }
    }

    pub fn push(&self, pause: Duration, bytes: String) {
        self.queued.fetch_add(1, Ordering::SeqCst);
        let _ = self.tx.send((pause, bytes.into_bytes()));
    }

    /// The first packet at once, each other one `pause` after the one before.
    pub fn push_all(&self, packets: Vec<String>, pause: Duration) {
        for (i, packet) in packets.into_iter().enumerate() {
            self.push(if i == 0 { Duration::ZERO } else { pause }, packet);
        }
    }

    pub fn busy(&self) -> bool {
        self.queued.load(Ordering::SeqCst) > 0
    }
}

/// A TCP proxy in front of the server on `server_port`; once `deaf` is set it stops reading
/// what the client sends (its small receive buffer fills, then the client's), while still
/// passing on everything the server sends. Returns the proxy's port.
pub async fn proxy(server_port: u16, deaf: Arc<AtomicBool>) -> u16 {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(8).unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let server = TcpStream::connect(("127.0.0.1", server_port))
                .await
                .unwrap();
            let (mut from_client, mut to_client) = client.into_split();
            let (mut from_server, mut to_server) = server.into_split();
            tokio::spawn(async move {
                let _ = tokio::io::copy(&mut from_server, &mut to_client).await;
            });
            let deaf = deaf.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 512];
                while !deaf.load(Ordering::SeqCst) {
                    match from_client.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => {
                            if to_server.write_all(&buf[..n]).await.is_err() {
                                return;
                            }
                        }
                    }
                }
                // Deaf: hold both halves open and read nothing more, for ever.
                std::future::pending::<()>().await;
                drop((from_client, to_server));
            });
        }
    });
    port
}

/// `text` cut at these character positions, each piece a line of its own.
pub fn lines_cut_at(text: &str, cuts: &[usize]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut at = 0;
    for cut in cuts.iter().chain([&text.len()]) {
        let cut = (*cut).clamp(at, text.len());
        lines.push(format!("{}\r\n", &text[at..cut]));
        at = cut;
    }
    lines
}
