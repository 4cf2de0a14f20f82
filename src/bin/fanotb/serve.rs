//! `serve`: the tables over HTTP, as a JSON API and the web board at `/`. One
//! `Tablebase` is shared by every request; the answers are the same reports as
//! `probe --json`, `line --json` and `stats --json`.

use std::error::Error;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use clap::Args;
use serde::Deserialize;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

use fanotb::{
    Board, Limit, Position, ProbeError, Rules, RulesError, Signature, TableError, Tablebase,
};

use crate::args::{Result, TablesArg, message};
use crate::charts::{self, Chart};
use crate::output::emit;
use crate::{probe, tables};

#[derive(Args)]
pub struct ServeArgs {
    /// Address and port to listen on; port 0 takes a free port (the address is
    /// printed). Example: 0.0.0.0:8080 to be reachable from other machines.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// MiB of decompressed table blocks each server thread keeps: random probes
    /// run fastest when it holds the tables' blocks. Example: 1024.
    #[arg(long, default_value_t = 64)]
    pub cache_mib: usize,
    /// Seconds a request may run before it is answered 503. Example: 30.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
    #[command(flatten)]
    pub tables: TablesArg,
}

/// Longest position text accepted (the largest board's text is under 100 bytes).
const MAX_POSITION_TEXT: usize = 256;
/// Largest request body accepted: the API takes none.
const MAX_BODY: usize = 1024;

type Shared = Arc<Tablebase>;

/// Runs the server until Ctrl-C (or SIGTERM), then lets requests in flight finish.
pub fn serve(a: ServeArgs) -> Result<()> {
    let tb = Arc::new(Tablebase::open(&a.tables.dir)?);
    Tablebase::set_cache_per_thread(a.cache_mib.saturating_mul(1 << 20));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(a.bind)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", a.bind))?;
        let addr = listener.local_addr()?;
        emit(&format!(
            "serving {} on http://{addr}/ (Ctrl-C stops)\n",
            a.tables.dir.display()
        ));
        axum::serve(listener, router(tb, Duration::from_secs(a.timeout)))
            .with_graceful_shutdown(shutdown())
            .await?;
        eprintln!("stopped");
        Ok(())
    })
}

/// The routes: the API under `/api`, the web page and its assets at the root.
pub fn router(tb: Shared, timeout: Duration) -> Router {
    Router::new()
        .route("/api/probe", get(probe_handler))
        .route("/api/line", get(line_handler))
        .route("/api/tables", get(tables_handler))
        .route("/charts/depths.svg", get(depths_chart_handler))
        .route("/charts/shares.svg", get(shares_chart_handler))
        .route("/", get(|| asset("index.html")))
        .route("/board.js", get(|| asset("board.js")))
        .route("/style.css", get(|| asset("style.css")))
        .fallback(|uri: Uri| async move {
            ApiError(
                StatusCode::NOT_FOUND,
                format!("no such path: {}", uri.path()),
            )
        })
        .layer(RequestBodyLimitLayer::new(MAX_BODY))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            timeout,
        ))
        .with_state(tb)
}

/// Waits for Ctrl-C or SIGTERM.
async fn shutdown() {
    let ctrl_c = async {
        tokio::signal::ctrl_c().await.ok();
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    eprintln!("shutting down: finishing the requests in flight");
}

/// The web page's files, embedded at build time so the page works offline.
async fn asset(name: &str) -> Response {
    let (body, kind) = match name {
        "index.html" => (include_str!("web/index.html"), "text/html; charset=utf-8"),
        "board.js" => (
            include_str!("web/board.js"),
            "text/javascript; charset=utf-8",
        ),
        _ => (include_str!("web/style.css"), "text/css; charset=utf-8"),
    };
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// An error answer: the status and `{"ok": false, "error": ...}`.
struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({"ok": false, "error": self.1});
        (self.0, axum::Json(body)).into_response()
    }
}

impl From<Box<dyn Error>> for ApiError {
    /// A missing table is 404 (named, with the command that builds it); a damaged
    /// or unreadable one is the server's fault (500); anything else is the
    /// request's (400).
    fn from(e: Box<dyn Error>) -> ApiError {
        let table = match e.downcast_ref::<ProbeError>() {
            Some(ProbeError::Table(t)) => Some(t),
            Some(_) => None,
            None => e.downcast_ref::<TableError>(),
        };
        let status = match table {
            Some(TableError::Missing { .. }) => StatusCode::NOT_FOUND,
            Some(_) => StatusCode::INTERNAL_SERVER_ERROR,
            None => StatusCode::BAD_REQUEST,
        };
        ApiError(status, message(e.as_ref()))
    }
}

fn bad_request(msg: impl Into<String>) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, msg.into())
}

/// `?position=TEXT[&limit=N[&counter=C]]`.
#[derive(Deserialize)]
struct PositionQuery {
    position: String,
    limit: Option<u64>,
    counter: Option<u32>,
}

impl PositionQuery {
    fn parse(q: std::result::Result<Query<Self>, QueryRejection>) -> Result<(Position, Rules)> {
        let Query(q) = q.map_err(|e| e.body_text())?;
        if q.position.len() > MAX_POSITION_TEXT {
            return Err(format!("position text longer than {MAX_POSITION_TEXT} bytes").into());
        }
        let pos = Position::parse_arg(&q.position)?;
        let rules = Rules::from_request(q.limit, q.counter).map_err(|e| match e {
            // Said in the terms of the query string.
            RulesError::CounterWithoutLimit => "counter needs a limit (&limit=N)".to_string(),
            e => e.to_string(),
        })?;
        Ok((pos, rules))
    }
}

type Answer<T> = std::result::Result<axum::Json<T>, ApiError>;

async fn probe_handler(
    State(tb): State<Shared>,
    q: std::result::Result<Query<PositionQuery>, QueryRejection>,
) -> Answer<probe::ProbeReport> {
    let (pos, rules) = PositionQuery::parse(q).map_err(|e| bad_request(e.to_string()))?;
    Ok(axum::Json(probe::probe_report(&pos, &tb, rules)?))
}

async fn line_handler(
    State(tb): State<Shared>,
    q: std::result::Result<Query<PositionQuery>, QueryRejection>,
) -> Answer<probe::LineReport> {
    let (pos, rules) = PositionQuery::parse(q).map_err(|e| bad_request(e.to_string()))?;
    // A line is up to a few hundred probes: off the async workers.
    let line = blocking(move || probe::line_report(&pos, &tb, rules)).await?;
    Ok(axum::Json(line))
}

async fn tables_handler(State(tb): State<Shared>) -> Answer<tables::StatsReport> {
    let infos = blocking(move || Ok(tb.tables()?)).await?;
    Ok(axum::Json(tables::stats_report(&infos)))
}

/// Runs blocking work on tokio's blocking pool.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> std::result::Result<T, ApiError> {
    tokio::task::spawn_blocking(move || f().map_err(ApiError::from))
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
}

/// `?board=WxH[&signature=NvM][&limit=N]`: which chart.
#[derive(Deserialize)]
struct ChartQuery {
    board: String,
    signature: Option<String>,
    limit: Option<u64>,
}

impl ChartQuery {
    fn parse(
        q: std::result::Result<Query<Self>, QueryRejection>,
    ) -> std::result::Result<(&'static Board, Option<Limit>, Option<Signature>), ApiError> {
        let Query(q) = q.map_err(|e| bad_request(e.body_text()))?;
        let board = Board::by_name(&q.board).map_err(|e| bad_request(e.to_string()))?;
        let limit = q
            .limit
            .map(Limit::new)
            .transpose()
            .map_err(|e| bad_request(e.to_string()))?;
        let sig = q
            .signature
            .map(|s| s.parse::<Signature>())
            .transpose()
            .map_err(|e| bad_request(e.to_string()))?;
        Ok((board, limit, sig))
    }
}

fn svg(body: String) -> Response {
    ([(header::CONTENT_TYPE, "image/svg+xml")], body).into_response()
}

async fn depths_chart_handler(
    State(tb): State<Shared>,
    q: std::result::Result<Query<ChartQuery>, QueryRejection>,
) -> std::result::Result<Response, ApiError> {
    let (board, limit, sig) = ChartQuery::parse(q)?;
    let sig = sig.ok_or_else(|| bad_request("missing field `signature`"))?;
    let body = blocking(move || {
        let h = tb.depths(board, limit, sig)?;
        Ok(charts::depth_chart(board, limit, sig, &h).svg()?)
    })
    .await?;
    Ok(svg(body))
}

async fn shares_chart_handler(
    State(tb): State<Shared>,
    q: std::result::Result<Query<ChartQuery>, QueryRejection>,
) -> std::result::Result<Response, ApiError> {
    let (board, limit, _) = ChartQuery::parse(q)?;
    let body = blocking(move || {
        let bars = charts::shares(&tb.tables()?, board, limit);
        let title = charts::shares_title(board, limit);
        let chart = charts::SharesChart { title, bars: &bars };
        Ok((!bars.is_empty()).then(|| chart.svg()).transpose()?)
    })
    .await?;
    let rules = limit.map_or(String::new(), |n| format!(" under the limit {n}"));
    body.map(svg).ok_or_else(|| {
        ApiError(
            StatusCode::NOT_FOUND,
            format!("no tables of {}{rules}", board.size_name()),
        )
    })
}
