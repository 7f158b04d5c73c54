//! Where a client's messages come from: stdin, one message per line, and optionally a local
//! Unix socket (`verdict client --socket PATH`) for applications that post without owning the
//! process's stdin.
//!
//! The socket is created mode 0600 (whoever can write to it posts under this client's slot).
//! Each connection sends lines; each line is one message and is answered with one JSON line:
//! `{"queued": true}` once the state machine queued it, or `{"queued": false, "error": …}`
//! (too long, session over). Lines are bounded (a line longer than the largest message is
//! refused without being buffered whole), and so are the connections served at once.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt};
use tokio::net::UnixListener;
use tokio::sync::{Semaphore, mpsc, oneshot};

use crate::error::NodeError;

/// Messages read and not yet handed to the state machine.
const INPUT_QUEUE: usize = 64;
/// Socket connections served at once.
const MAX_CONNECTIONS: usize = 16;

/// One message for the client, and where to report whether it was queued.
pub(crate) struct Input {
    /// The message.
    pub(crate) message: Vec<u8>,
    /// The socket connection waiting for the answer (`None` for stdin).
    pub(crate) reply: Option<oneshot::Sender<Result<(), String>>>,
}

/// Reads stdin (if `stdin`) and the socket at `socket` (if any) into one channel.
pub(crate) fn spawn(
    socket: Option<&Path>,
    stdin: bool,
    max_len: usize,
) -> Result<mpsc::Receiver<Input>, NodeError> {
    let (tx, rx) = mpsc::channel(INPUT_QUEUE);
    let stdin_tx = tx.clone();
    tokio::spawn(async move {
        if !stdin {
            // Kept open (never sends): the channel closes only with the socket's sender.
            stdin_tx.closed().await;
            return;
        }
        let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
        loop {
            let message = match next_line(&mut stdin, max_len).await {
                Ok(Some(Ok(message))) => message,
                Ok(Some(Err(TooLong))) => {
                    tracing::warn!(max_len, "message on stdin too long; not queued");
                    continue;
                }
                Ok(None) | Err(_) => break,
            };
            let input = Input {
                message,
                reply: None,
            };
            if stdin_tx.send(input).await.is_err() {
                break;
            }
        }
    });
    if let Some(path) = socket {
        let listener = bind(path)?;
        tokio::spawn(accept(listener, path.to_path_buf(), tx, max_len));
    }
    Ok(rx)
}

/// Binds `path` (replacing a stale socket file, never another kind of file), mode 0600.
fn bind(path: &Path) -> Result<UnixListener, NodeError> {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(NodeError::Usage(format!(
                "{}: exists and is not a socket",
                path.display()
            )));
        }
        std::fs::remove_file(path).map_err(NodeError::io(path))?;
    }
    let listener = UnixListener::bind(path).map_err(NodeError::io(path))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(NodeError::io(path))?;
    Ok(listener)
}

async fn accept(listener: UnixListener, path: PathBuf, tx: mpsc::Sender<Input>, max_len: usize) {
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(e) => {
                tracing::warn!(socket = %path.display(), error = %e, "accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
            tracing::warn!("too many input connections; one dropped");
            continue;
        };
        let tx = tx.clone();
        tokio::spawn(async move {
            serve(stream, tx, max_len).await;
            drop(permit);
        });
    }
}

/// Serves one connection until it closes.
async fn serve(stream: tokio::net::UnixStream, tx: mpsc::Sender<Input>, max_len: usize) {
    let (read, mut write) = stream.into_split();
    let mut read = tokio::io::BufReader::new(read);
    loop {
        let answer = match next_line(&mut read, max_len).await {
            Ok(Some(Ok(message))) => {
                let (reply, result) = oneshot::channel();
                let input = Input {
                    message,
                    reply: Some(reply),
                };
                if tx.send(input).await.is_err() {
                    return;
                }
                result.await.unwrap_or(Err("the client stopped".into()))
            }
            Ok(Some(Err(TooLong))) => Err(format!("message too long (at most {max_len} bytes)")),
            Ok(None) | Err(_) => return,
        };
        let json = match answer {
            Ok(()) => serde_json::json!({"queued": true}),
            Err(e) => serde_json::json!({"queued": false, "error": e}),
        };
        let mut line = json.to_string().into_bytes();
        line.push(b'\n');
        if write.write_all(&line).await.is_err() {
            return;
        }
    }
}

/// A line longer than the largest message (consumed, not kept).
struct TooLong;

/// The next line (without its `\n` or `\r\n`), `Err(TooLong)` for one over `max` bytes — read
/// to its end without keeping more than `max` bytes — or `None` at the end of the stream.
async fn next_line<R: AsyncBufRead + Unpin>(
    r: &mut R,
    max: usize,
) -> std::io::Result<Option<Result<Vec<u8>, TooLong>>> {
    let mut line = Vec::new();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let buf = r.fill_buf().await?;
        if buf.is_empty() {
            // The stream ended; a last line without its newline still counts.
            return Ok(read_any.then_some(if too_long { Err(TooLong) } else { Ok(line) }));
        }
        read_any = true;
        let end = buf.iter().position(|b| *b == b'\n');
        let chunk = &buf[..end.unwrap_or(buf.len())];
        if !too_long {
            if line.len() + chunk.len() > max + 1 {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = end.map_or(buf.len(), |e| e + 1);
        r.consume(used);
        if end.is_some() {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if line.len() > max {
                too_long = true;
            }
            return Ok(Some(if too_long { Err(TooLong) } else { Ok(line) }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_bounded_and_an_over_long_one_is_skipped_whole() {
        let input = b"hi\r\nxxxxxxxxxx\nok\nlast";
        let mut r = tokio::io::BufReader::with_capacity(4, &input[..]);
        let mut got = Vec::new();
        while let Some(l) = next_line(&mut r, 5).await.unwrap() {
            got.push(l.ok());
        }
        assert_eq!(
            got,
            vec![
                Some(b"hi".to_vec()),
                None,
                Some(b"ok".to_vec()),
                Some(b"last".to_vec())
            ]
        );
    }
}
