//! `serve`: the tables over HTTP, as a JSON API and the web board at `/`. One
//! `Tablebase` is shared by every request; the answers are the same reports as
//! `probe --json`, `line --json` and `stats --json`.

use std::error::Error;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use clap::Args;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

use fanotb::{ChartQuery, GameQuery, PositionQuery, ProbeError, Record, TableError, Tablebase};

use crate::args::{Result, TablesArg, message};
use crate::charts::{self, Chart};
use crate::output::emit;
use crate::{game, rules, tables};

#[derive(Args)]
pub struct ServeArgs {
    /// Address and port to listen on; port 0 takes a free port (the address is
    /// printed). Example: 0.0.0.0:8080 to be reachable from other machines.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// MiB of decompressed table blocks the whole server keeps, over all its
    /// threads: random probes run fastest when it holds the tables' blocks.
    /// Example: 1024.
    #[arg(long, default_value_t = 256)]
    pub cache_mib: usize,
    /// Threads that answer requests (and as many more for lines and statistics);
    /// 0 takes one per core.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Connections held at once; one more is answered 503 and closed. It is also
    /// kept 64 below the open-file limit (`ulimit -n`). Example: 10000.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections: u64,
    /// Seconds a client has to send a request's headers, that an idle
    /// connection is kept, and that a client may take no bytes of an answer.
    /// Example: 5.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout: u64,
    /// Seconds a request may run before it is answered 503; on Ctrl-C, requests
    /// in flight get as long to finish. Example: 30.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
    /// The proof the player and the analysis read: `builtin` (the tsivy draw proof
    /// built into fanotb), `none`, or a certificate file whose lemmas are in its
    /// directory.
    #[arg(long, default_value = "builtin")]
    pub solution: String,
    #[command(flatten)]
    pub tables: TablesArg,
}

/// Largest request body accepted: the API takes none, but for a record to analyse.
const MAX_BODY: usize = 1024;
/// Largest record `/api/analyse` takes: thousands of plies.
const MAX_RECORD_BODY: usize = 64 << 10;
/// A connection's read buffer at most (hyper's default is 400 KiB): a request of
/// the API is a few hundred bytes, so thousands of connections stay small.
const MAX_READ_BUFFER: usize = 16 << 10;
/// Descriptors kept free below the open-file limit: the tables, the listener, and
/// a connection refused at the cap.
const SPARE_FILES: u64 = 64;

/// What every request reads: the tables, and the solution the player plays from.
pub struct Served {
    tb: Arc<Tablebase>,
    solution: Option<Arc<fanotb::SolvedGame>>,
}

impl std::ops::Deref for Served {
    type Target = Tablebase;
    fn deref(&self) -> &Tablebase {
        &self.tb
    }
}

impl Served {
    /// A player for one request: the shared tables and proofs, and no search (a
    /// request stays short; `fanotb analyse` and `fanotb engine` search).
    fn player(&self) -> fanotb::Player {
        let mut opts = fanotb::PlayerOptions::default();
        opts.search_nodes = 0;
        fanotb::Player::shared(self.solution.clone(), Some(self.tb.clone()), opts)
    }
}

type Shared = Arc<Served>;

/// Runs the server until Ctrl-C (or SIGTERM), then lets requests in flight finish
/// for at most `--timeout` seconds.
pub fn serve(a: ServeArgs) -> Result<()> {
    let tb = Arc::new(Served {
        tb: Arc::new(Tablebase::open(&a.tables.dir)?),
        solution: fanotb::SolutionSource::parse(&a.solution)
            .load()?
            .map(Arc::new),
    });
    let threads = match a.threads {
        0 => std::thread::available_parallelism().map_or(2, usize::from),
        n => n,
    };
    // Memory is bounded whatever the load: the cache for the process as a whole,
    // and a fixed number of threads.
    let cache = a.cache_mib.saturating_mul(1 << 20);
    Tablebase::set_cache_total(cache);
    Tablebase::set_cache_per_thread(cache);
    let max_connections = open_files_limit()
        .map_or(a.max_connections, |n| {
            a.max_connections.min(n.saturating_sub(SPARE_FILES))
        })
        .max(1);
    let limits = Limits {
        connections: max_connections as usize,
        header: Duration::from_secs(a.header_timeout),
        grace: Duration::from_secs(a.timeout),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .max_blocking_threads(threads)
        .enable_all()
        .build()?;
    let result = runtime.block_on(async move {
        let listener = TcpListener::bind(a.bind)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", a.bind))?;
        let addr = listener.local_addr()?;
        emit(&format!(
            "serving {} on http://{addr}/ (Ctrl-C stops)\n",
            a.tables.dir.display()
        ));
        run(listener, router(tb, limits.grace), &limits).await;
        Ok(())
    });
    // A line still computing on a blocking thread is not waited for.
    runtime.shutdown_timeout(Duration::from_secs(1));
    eprintln!("stopped");
    result
}

/// What the server holds to: connections at once, the time a client has to send
/// its headers, and the time requests in flight get at shutdown.
struct Limits {
    connections: usize,
    header: Duration,
    grace: Duration,
}

/// Accepts connections until Ctrl-C or SIGTERM, at most `limits.connections` at
/// once, each served over HTTP/1.1 with a header-read timeout; then waits at most
/// `limits.grace` for the requests in flight.
async fn run(listener: TcpListener, app: Router, limits: &Limits) {
    let permits = Arc::new(Semaphore::new(limits.connections));
    let refusing = Arc::new(Semaphore::new(MAX_REFUSING));
    let graceful = GracefulShutdown::new();
    let mut stop = std::pin::pin!(shutdown());
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of descriptors or a connection reset before it was
                    // taken: the listener itself is fine, so try again shortly.
                    eprintln!("accept: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            refuse(stream, &refusing);
            continue;
        };
        // A client that takes no bytes of an answer for as long as it may take to
        // send its headers is dropped: a reader that never reads holds nothing.
        let mut io = tokio_io_timeout::TimeoutStream::new(stream);
        io.set_write_timeout(Some(limits.header));
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(limits.header)
            .max_buf_size(MAX_READ_BUFFER);
        let conn = http.serve_connection(
            TokioIo::new(Box::pin(io)),
            TowerToHyperService::new(app.clone()),
        );
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            // A client that goes away or sends garbage ends its connection only.
            let _ = conn.await;
            drop(permit);
        });
    }
    drop(listener);
    let open = limits.connections - permits.available_permits();
    eprintln!("shutting down: finishing the requests in flight ({open} connections open)");
    if tokio::time::timeout(limits.grace, graceful.shutdown())
        .await
        .is_err()
    {
        eprintln!(
            "closing the connections still open after {} s",
            limits.grace.as_secs()
        );
    }
}

/// Refused connections whose requests are drained before they are closed; beyond
/// these, a refused connection is closed at once.
const MAX_REFUSING: usize = 256;

/// A connection over the cap: a 503 if the socket takes it at once, then closed.
/// Closing a socket whose request is still unread makes the kernel send a reset,
/// which can overtake the 503 at the client; so the write side is shut (the client
/// reads the 503 and the end), and what the client sent is read and dropped until
/// it closes, 64 KiB or a second at most.
fn refuse(stream: TcpStream, refusing: &Arc<Semaphore>) {
    let body = r#"{"ok":false,"error":"too many connections, try again"}"#;
    let busy = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.try_write(busy.as_bytes());
    let Ok(permit) = refusing.clone().try_acquire_owned() else {
        return;
    };
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = stream;
        let _ = stream.shutdown().await;
        let drain = async {
            let mut buf = [0u8; 4096];
            let mut left = 64 * 1024;
            while left > 0 {
                match stream.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => left -= n.min(left),
                }
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), drain).await;
        drop(permit);
    });
}

/// The soft limit on open files of this process (Linux, from /proc).
fn open_files_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// The routes: the API under `/api`, the web page and its assets at the root.
pub fn router(tb: Shared, timeout: Duration) -> Router {
    let records = Router::new()
        .route("/api/analyse", post(analyse_handler))
        .layer(RequestBodyLimitLayer::new(MAX_RECORD_BODY));
    Router::new()
        .route("/api/probe", get(probe_handler))
        .route("/api/line", get(line_handler))
        .route("/api/moves", get(moves_handler))
        .route("/api/game", get(game_handler))
        .route("/api/play", get(play_handler))
        .route("/api/tables", get(tables_handler))
        .route("/charts/depths.svg", get(depths_chart_handler))
        .route("/charts/shares.svg", get(shares_chart_handler))
        .route("/", get(|| asset("index.html")))
        .route("/board.js", get(|| asset("board.js")))
        .route("/style.css", get(|| asset("style.css")))
        .route("/analyse", get(|| asset("analyse.html")))
        .route("/analyse.js", get(|| asset("analyse.js")))
        .route("/play", get(|| asset("play.html")))
        .route("/play.js", get(|| asset("play.js")))
        .route("/draw.js", get(|| asset("draw.js")))
        .layer(RequestBodyLimitLayer::new(MAX_BODY))
        .merge(records)
        .fallback(|uri: Uri| async move {
            ApiError(
                StatusCode::NOT_FOUND,
                format!("no such path: {}", uri.path()),
            )
        })
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
}

/// The web page's files, embedded at build time so the page works offline.
async fn asset(name: &str) -> Response {
    let (body, kind) = match name {
        "index.html" => (include_str!("web/index.html"), "text/html; charset=utf-8"),
        "board.js" => (
            include_str!("web/board.js"),
            "text/javascript; charset=utf-8",
        ),
        "analyse.html" => (include_str!("web/analyse.html"), "text/html; charset=utf-8"),
        "analyse.js" => (
            include_str!("web/analyse.js"),
            "text/javascript; charset=utf-8",
        ),
        "play.html" => (include_str!("web/play.html"), "text/html; charset=utf-8"),
        "play.js" => (
            include_str!("web/play.js"),
            "text/javascript; charset=utf-8",
        ),
        "draw.js" => (
            include_str!("web/draw.js"),
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

impl From<ProbeError> for ApiError {
    fn from(e: ProbeError) -> ApiError {
        ApiError::from(Box::new(e) as Box<dyn Error>)
    }
}

impl From<Box<dyn Error>> for ApiError {
    /// A missing table is 404 (named, with the command that builds it); a damaged
    /// or unreadable one is the server's fault (500); anything else is the
    /// request's (400).
    fn from(e: Box<dyn Error>) -> ApiError {
        let probe = e.downcast_ref::<ProbeError>().or_else(|| {
            match e.downcast_ref::<fanotb::AnalysisError>() {
                Some(fanotb::AnalysisError::Probe(p)) => Some(p),
                _ => None,
            }
        });
        let table = match probe {
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

/// The position and rules of `?position=TEXT[&limit=N[&counter=C]]`.
fn position_query(q: Option<String>) -> std::result::Result<PositionQuery, ApiError> {
    PositionQuery::parse(q.as_deref().unwrap_or("")).map_err(|e| bad_request(e.to_string()))
}

type Answer<T> = std::result::Result<axum::Json<T>, ApiError>;

async fn probe_handler(
    State(tb): State<Shared>,
    RawQuery(q): RawQuery,
) -> Answer<fanotb::report::ProbeReport> {
    let q = position_query(q)?;
    Ok(axum::Json(fanotb::report::probe_report(
        &q.position,
        &tb,
        q.rules,
    )?))
}

/// The legal moves from the rules alone, for a position no table covers: the board
/// draws them whatever the tables hold.
async fn moves_handler(RawQuery(q): RawQuery) -> Answer<rules::MovesReport> {
    let q = position_query(q)?;
    Ok(axum::Json(rules::MovesReport::new(q.position, q.rules)))
}

async fn line_handler(
    State(tb): State<Shared>,
    RawQuery(q): RawQuery,
) -> Answer<fanotb::report::LineReport> {
    let q = position_query(q)?;
    // A line is up to a few hundred probes: off the async workers.
    let line =
        blocking(move || Ok(fanotb::report::line_report(&q.position, &tb, q.rules)?)).await?;
    Ok(axum::Json(line))
}

/// `?start=TEXT&moves=M1+M2...`: the game replayed by the rules, how it ended if it
/// has, and its record.
async fn game_handler(RawQuery(q): RawQuery) -> Answer<game::GameReport> {
    let q = GameQuery::parse(q.as_deref().unwrap_or("")).map_err(|e| bad_request(e.to_string()))?;
    Ok(axum::Json(game::GameReport::new(&q.game)))
}

/// `?start=TEXT&moves=M1+M2...&engine=white|black`: the game replayed, then the
/// player's move if it is the engine's side to move; what is proved now, and the
/// legal moves.
async fn play_handler(
    State(served): State<Shared>,
    RawQuery(q): RawQuery,
) -> Answer<game::PlayReport> {
    let (engine, rest) = split_engine(&q.unwrap_or_default());
    let engine = match engine.as_deref() {
        None | Some("") => None,
        Some("white") => Some(fanotb::Color::White),
        Some("black") => Some(fanotb::Color::Black),
        Some(other) => return Err(bad_request(format!("engine {other:?}: white or black"))),
    };
    let q = GameQuery::parse(&rest).map_err(|e| bad_request(e.to_string()))?;
    let report =
        blocking(move || game::PlayReport::new(q.game, engine, &mut served.player())).await?;
    Ok(axum::Json(report))
}

/// The query without its `engine` field, and that field.
fn split_engine(raw: &str) -> (Option<String>, String) {
    let mut engine = None;
    let mut rest = form_urlencoded::Serializer::new(String::new());
    for (k, v) in form_urlencoded::parse(raw.as_bytes()) {
        if k == "engine" {
            engine = Some(v.into_owned());
        } else {
            rest.append_pair(&k, &v);
        }
    }
    (engine, rest.finish())
}

/// A record in the body: its analysis, as `analyse --json` prints it. At most
/// `MAX_ANALYSED_PLIES` plies, and at most one analysis a core at once: a request
/// timed out (503) still holds its place until its work ends, so clients that
/// retry at once never pile up work.
async fn analyse_handler(
    State(tb): State<Shared>,
    body: String,
) -> Answer<fanotb::report::AnalyseReport> {
    let record: Record = body
        .parse()
        .map_err(|e: fanotb::RecordError| bad_request(e.to_string()))?;
    if record.moves().len() > MAX_ANALYSED_PLIES {
        return Err(bad_request(format!(
            "a record of {} plies: at most {MAX_ANALYSED_PLIES} are analysed here (`fanotb analyse` takes any)",
            record.moves().len()
        )));
    }
    let places = ANALYSES.get_or_init(analysis_places).clone();
    let Ok(place) = places.try_acquire_owned() else {
        return Err(ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy analysing other games, try again".into(),
        ));
    };
    let report = blocking(move || {
        let _place = place;
        let (analysis, judged) = tb.player().analyse_game(&record)?;
        Ok(fanotb::report::AnalyseReport::new(&analysis, &judged))
    })
    .await?;
    Ok(axum::Json(report))
}

/// Plies of a record `/api/analyse` takes: a long game, a few seconds of probes.
const MAX_ANALYSED_PLIES: usize = 2000;

/// Analyses running at once, over the whole server.
static ANALYSES: std::sync::OnceLock<Arc<Semaphore>> = std::sync::OnceLock::new();

fn analysis_places() -> Arc<Semaphore> {
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    Arc::new(Semaphore::new(cores))
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

/// Which chart: `?board=WxH[&signature=NvM][&limit=N]`.
fn chart_query(q: Option<String>) -> std::result::Result<ChartQuery, ApiError> {
    ChartQuery::parse(q.as_deref().unwrap_or("")).map_err(|e| bad_request(e.to_string()))
}

fn svg(body: String) -> Response {
    ([(header::CONTENT_TYPE, "image/svg+xml")], body).into_response()
}

async fn depths_chart_handler(
    State(tb): State<Shared>,
    RawQuery(q): RawQuery,
) -> std::result::Result<Response, ApiError> {
    let ChartQuery {
        board,
        kind,
        signature,
    } = chart_query(q)?;
    let sig = signature.ok_or_else(|| bad_request("missing field `signature`"))?;
    let body = blocking(move || {
        let h = tb.depths(board, kind, sig)?;
        Ok(charts::depth_chart(board, kind, sig, &h).svg()?)
    })
    .await?;
    Ok(svg(body))
}

async fn shares_chart_handler(
    State(tb): State<Shared>,
    RawQuery(q): RawQuery,
) -> std::result::Result<Response, ApiError> {
    let ChartQuery { board, kind, .. } = chart_query(q)?;
    let body = blocking(move || {
        let bars = charts::shares(&tb.tables()?, board, kind);
        let title = charts::shares_title(board, kind);
        let chart = charts::SharesChart { title, bars: &bars };
        Ok((!bars.is_empty()).then(|| chart.svg()).transpose()?)
    })
    .await?;
    body.map(svg).ok_or_else(|| {
        ApiError(
            StatusCode::NOT_FOUND,
            format!("no tables of {}{kind}", board.size_name()),
        )
    })
}
