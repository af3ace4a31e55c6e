//! Loopback ports and in-process servers on them.

use std::net::{SocketAddr, TcpListener};

/// A loopback port that was free a moment ago (for programs that must be given a port).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Serves `app` on a loopback port from a thread (and runtime) of its own, for as long as the
/// test process lives; its address.
pub fn serve_in_thread(app: axum::Router) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    listener
        .set_nonblocking(true)
        .expect("a non-blocking listener");
    let address = listener.local_addr().expect("its address");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("a tokio listener");
            let _ = axum::serve(listener, app).await;
        });
    });
    address
}
