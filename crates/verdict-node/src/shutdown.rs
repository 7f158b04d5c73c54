//! When a member process stops: on Ctrl-C, SIGTERM, or when the process that spawned it is gone
//! (so `verdict local`'s children never outlive it).

use std::time::Duration;

/// Stops when Ctrl-C or SIGTERM arrives, or (with `watch`) when the parent process is gone.
pub async fn shutdown_signal(watch_parent: bool) {
    let parent = std::os::unix::process::parent_id();
    let orphaned = async move {
        if !watch_parent {
            return std::future::pending().await;
        }
        loop {
            tokio::time::sleep(Duration::from_millis(300)).await;
            if std::os::unix::process::parent_id() != parent {
                return;
            }
        }
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = term => {}
        () = orphaned => tracing::warn!("parent process gone; stopping"),
    }
}
