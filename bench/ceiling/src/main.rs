//! The benchmark's ceiling (scripts/bench.sh): a bare axum server answering
//! every request, whatever its method and path, with the bytes of one file as
//! `application/json`. Measured beside switchboard answering the same bytes, it
//! shows what the HTTP stack alone allows.
//!
//!   ceiling <listen-address> <body-file>

use axum::Router;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(listen), Some(file)) = (args.next(), args.next()) else {
        eprintln!("usage: ceiling <listen-address> <body-file>");
        std::process::exit(2);
    };
    let body: &'static [u8] = std::fs::read(&file).unwrap_or_else(|err| panic!("reading {file}: {err}")).leak();
    let app =
        Router::new().fallback(move || async move { ([(CONTENT_TYPE, "application/json")], body).into_response() });
    let listener = tokio::net::TcpListener::bind(&listen).await.unwrap_or_else(|err| panic!("binding {listen}: {err}"));
    axum::serve(listener, app).await.expect("serving");
}
