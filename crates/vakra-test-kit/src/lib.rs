//! Helpers shared by the workspace's tests, in one place so that every test reads the
//! environment, finds its data and talks to a server the same way. Used only as a
//! `[dev-dependencies]` entry (`publish = false`); it depends on no `vakra-*` crate, so any crate
//! of the workspace can use it without a dependency circle.
//!
//! The rules it holds (also in `docs/testing.md`):
//! - **Paths** ([`paths`]): the repository root is the demo data root; `shared/` is the folder
//!   `VAKRA_SHARED` names, else the repository's sibling `../shared`.
//! - **Switches** ([`switches`]): a `VAKRA_REQUIRE_*` switch is on when set to anything but an
//!   empty string or `0`. A test whose input is missing calls [`switches::skip_or_fail`] with its
//!   switch: it fails when the switch is on and is skipped (saying why on stderr, past the
//!   harness's capture) otherwise.
//! - **The reference's files** ([`reference`]): the checkout `VAKRA_REF` names, else
//!   `shared/reference`, else a pinned shallow clone of IBM/vakra in a cache folder; missing, the
//!   test is skipped (required under `VAKRA_REQUIRE_REF`, and `VAKRA_REQUIRE_REF_CHECKOUT` for
//!   tests that need a whole checkout).
//! - **MCP** ([`mcp`]): rmcp client sessions over a child process's stdio or streamable HTTP,
//!   and tool calls giving the result text and its `isError` flag.
//! - **The official client** ([`python`]): a script of `tests/python/` run with the Python that
//!   `VAKRA_PYTHON` names (required under `VAKRA_REQUIRE_PYTHON`).
//! - **HTTP and loopback** ([`http`], [`net`]): client requests, raw HTTP/1.1 exchanges, free
//!   loopback ports and in-process servers on them.
//! - **Data roots** ([`root`]): temporary data roots, empty or with the demo's data.
//! - **The test model** ([`model`]): the MiniLM folder of the embedding tests (required under
//!   `VAKRA_REQUIRE_MODEL`).
//! - **Chroma stores** ([`chroma`]): stores written by the real `chromadb` in the Python that
//!   `VAKRA_CHROMA_PYTHON` names, with chromadb's answers (required under
//!   `VAKRA_REQUIRE_CHROMA`).
//! - **Texts** ([`text`]): JSON files and arguments, and text comparisons that show a diff.
//! - **Processes** ([`process`]): commands that must succeed.

pub mod bpo_recorded;
pub mod chroma;
pub mod http;
pub mod mcp;
pub mod model;
pub mod net;
pub mod paths;
pub mod process;
pub mod python;
pub mod reference;
pub mod root;
pub mod switches;
pub mod text;
