//! The REST-BIRD HTTP API, answering as the reference's FastAPI app does.
//!
//! Every catalog endpoint is served at its path with the reference's status codes and bodies
//! (compact UTF-8 JSON; FastAPI's 422 validation bodies; `Internal Server Error` as text/plain for
//! any failure; `{"detail":"Not Found"}` and `{"detail":"Method Not Allowed"}`). Route lookup is one
//! hash-map probe, so the last of 7,000 routes costs what the first does — the reference walks its
//! route list in order. Beside the endpoints: `/openapi.json` (all domains),
//! `/openapi/<domain>.json` (one domain), `/healthz`, `/readyz` and `/metrics`.

mod app;
mod metrics;

pub use app::{RestApi, router};
