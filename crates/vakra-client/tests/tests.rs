//! The client's tests, in-process: sessions on the demo data root's own servers.

mod session;
