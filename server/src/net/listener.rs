//! The listening socket: its backlog sized for reconnect storms, and the process's
//! open-file limit raised before it, so the connection budget has room.

use std::io;
use std::net::SocketAddr;

use tokio::net::{TcpListener, TcpSocket};

use crate::config::HttpLimits;

/// Raises the open-file limit to its hard limit (logging both), then listens on the
/// configured address with a backlog of `listen_backlog`, capped by the kernel's
/// `somaxconn`. The one call `cli::serve` makes before serving.
pub fn open_listener(http: &HttpLimits) -> Result<TcpListener, String> {
    raise_open_file_limit();
    let addr = http.addr;
    let failed = |e: io::Error| format!("cannot listen on {addr} (set --host/--port): {e}");
    let socket = match addr {
        SocketAddr::V4(_) => TcpSocket::new_v4(),
        SocketAddr::V6(_) => TcpSocket::new_v6(),
    }
    .map_err(failed)?;
    socket.set_reuseaddr(true).map_err(failed)?;
    socket.bind(addr).map_err(failed)?;
    let somaxconn = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()
        .and_then(|text| text.trim().parse::<u32>().ok());
    let backlog = somaxconn.map_or(http.listen_backlog, |max| http.listen_backlog.min(max));
    if backlog < http.listen_backlog {
        tracing::warn!(
            wanted = http.listen_backlog,
            somaxconn = backlog,
            "the kernel caps the listen backlog (raise net.core.somaxconn)"
        );
    }
    tracing::info!(backlog, "listen backlog");
    socket.listen(backlog).map_err(failed)
}

/// Sets the soft limit on open files to the hard limit, as servers do, and logs both.
fn raise_open_file_limit() {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let before = getrlimit(Resource::Nofile);
    if before.current != before.maximum {
        let raised = Rlimit {
            current: before.maximum,
            maximum: before.maximum,
        };
        if let Err(error) = setrlimit(Resource::Nofile, raised) {
            tracing::warn!(%error, "cannot raise the open-file limit");
        }
    }
    let after = getrlimit(Resource::Nofile);
    // A limit left out of the line is unlimited.
    tracing::info!(
        soft_before = before.current,
        soft = after.current,
        hard = after.maximum,
        "open-file limit"
    );
}
