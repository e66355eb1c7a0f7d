//! `run --openlineage`, on every engine: the events of a run of the
//! project `strata init` writes, appended to a file and POSTed to a local
//! HTTP receiver (the OpenLineage HTTP transport, with the API key of
//! `[openlineage]`), each validated against the official OpenLineage
//! schemas (tests/openlineage/validate.py); a failing run's FAIL event; an
//! unreachable endpoint or an unwritable file stops the run before
//! anything is built.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use crate::support::*;

/// What the receiver got: `(request line, authorization header, body)`.
type Received = Arc<Mutex<Vec<(String, String, String)>>>;

/// A tiny HTTP server on 127.0.0.1 answering 200 to each request; its URL.
fn receiver() -> (String, Received) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let got: Received = Arc::default();
    let kept = got.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let (mut first, mut auth, mut length) = (String::new(), String::new(), 0);
            let _ = reader.read_line(&mut first);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                if lower.starts_with("authorization:") {
                    auth = line["authorization:".len()..].trim().to_string();
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            kept.lock().expect("lock").push((
                first.trim().to_string(),
                auth,
                String::from_utf8_lossy(&body).to_string(),
            ));
        }
    });
    (url, got)
}

on_every_engine!(run_events_validate_and_reach_a_receiver,);

fn run_events_validate_and_reach_a_receiver(kind: Kind) {
    let dir = workdir("openlineage");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let Some(python) =
        crate::tools::python_with(&["jsonschema", "referencing", "rfc3986_validator"])
    else {
        return;
    };
    assert_exit(&strata(&dir, &["init", "."]), 0);
    let (url, got) = receiver();
    let key = "ol-secret-key-5eb1";
    let project = std::fs::read_to_string(dir.join("strata.toml")).expect("strata.toml");
    write(
        &dir,
        "strata.toml",
        &format!("{project}\n[openlineage]\nurl = \"{url}\"\napi-key-env = \"OL_TEST_KEY\"\nnamespace = \"e2e\"\n"),
    );
    let run = |extra: &[&str]| -> Output {
        let mut a = vec![
            "run",
            "orders.strata",
            "--pipeline",
            "local",
            "-o",
            "wh.duckdb",
        ];
        a.extend(extra);
        let o = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(wh.args(&a))
            .current_dir(&dir)
            .env("NO_COLOR", "1")
            .env("OL_TEST_KEY", key)
            .output()
            .expect("run strata");
        assert!(!text(&o).contains(key), "the API key was printed");
        o
    };

    // 1. To a file (the flag overrides strata.toml).
    assert_exit(&run(&["--openlineage", "events.jsonl"]), 0);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(dir.join("events.jsonl"))
        .expect("events written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON event a line"))
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    let (start, done) = (&lines[0], &lines[1]);
    assert_eq!(
        (start["eventType"].as_str(), done["eventType"].as_str()),
        (Some("START"), Some("COMPLETE"))
    );
    assert_eq!(start["run"]["runId"], done["run"]["runId"]);
    assert_eq!(done["job"]["name"], "orders.local");
    let runs = json(&wh.strata(&[
        "replay",
        "orders.strata",
        "-o",
        "wh.duckdb",
        "--format",
        "json",
    ]));
    assert_eq!(
        done["run"]["facets"]["strata_run"]["runId"], runs[0]["run_id"],
        "{done}"
    );
    let outputs = done["outputs"].as_array().expect("outputs");
    let enriched = outputs
        .iter()
        .find(|d| {
            d["name"]
                .as_str()
                .is_some_and(|n| n.ends_with("v_orders_by_customer"))
        })
        .unwrap_or_else(|| panic!("orders_by_customer published: {done}"));
    let country = &enriched["facets"]["columnLineage"]["fields"]["country"]["inputFields"][0];
    assert_eq!(
        (country["field"].as_str(), country["namespace"].as_str()),
        (Some("country"), Some("file")),
        "{enriched}"
    );
    assert!(
        country["name"]
            .as_str()
            .is_some_and(|n| n.ends_with("data/customers.csv")),
        "{country}"
    );
    let pins = enriched["facets"]["dataQualityAssertions"]["assertions"]
        .as_array()
        .expect("pins");
    assert!(
        pins.iter().any(|a| a["assertion"] == "nonnull"
            && a["column"] == "amount"
            && a["success"] == true),
        "{pins:?}"
    );
    assert_eq!(enriched["outputFacets"]["outputStatistics"]["rowCount"], 5);
    let customers = done["inputs"]
        .as_array()
        .expect("inputs")
        .iter()
        .find(|d| {
            d["name"]
                .as_str()
                .is_some_and(|n| n.ends_with("customers.csv"))
        })
        .unwrap_or_else(|| panic!("customers read: {done}"));
    assert_eq!(
        customers["facets"]["schema"]["fields"][0]["name"],
        "customer_id"
    );
    let join = &customers["inputFacets"]["dataQualityAssertions"]["assertions"][0];
    assert_eq!(
        (join["assertion"].as_str(), join["success"].as_bool()),
        (Some("join_cardinality"), Some(true)),
        "{customers}"
    );

    // 2. To the receiver strata.toml names, with its API key; then a
    // failing run (a customer twice breaks `expect many_to_one`): FAIL.
    assert_exit(&run(&[]), 0);
    write(
        &dir,
        "dup.csv",
        "customer_id,country\n10,ES\n10,PT\n20,PT\n30,FR\n",
    );
    assert_exit(&run(&["--source", "customers=dup.csv"]), 3);
    let received = got.lock().expect("lock").clone();
    assert_eq!(received.len(), 4, "{received:?}");
    for (request, auth, _) in &received {
        assert_eq!(request, "POST /api/v1/lineage HTTP/1.1");
        assert_eq!(auth, &format!("Bearer {key}"));
    }
    let fail: serde_json::Value = serde_json::from_str(&received[3].2).expect("json");
    assert_eq!(fail["eventType"], "FAIL");
    assert!(
        fail["run"]["facets"]["errorMessage"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("many_to_one")),
        "{fail}"
    );
    let bodies: Vec<String> = received.iter().map(|r| r.2.clone()).collect();
    write(&dir, "posted.jsonl", &(bodies.join("\n") + "\n"));

    // 3. Every event against the schemas.
    let check = std::process::Command::new(&python)
        .arg(crate::tools::root().join("tests/openlineage/validate.py"))
        .arg(crate::tools::root().join("tests/openlineage"))
        .args([dir.join("events.jsonl"), dir.join("posted.jsonl")])
        .output()
        .expect("python");
    assert!(
        check.status.success(),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(String::from_utf8_lossy(&check.stdout)
        .contains("validated 6 OpenLineage events, 0 violations"));

    // 4. A target that cannot take the START event: exit 4, nothing run.
    let runs_before = wh.query("SELECT COUNT(*) FROM _strata_runs");
    let closed = TcpListener::bind("127.0.0.1:0").expect("bind");
    let dead = format!("http://{}", closed.local_addr().expect("addr"));
    drop(closed);
    for target in [dead.as_str(), "no/such/dir/events.jsonl"] {
        let o = run(&["--openlineage", target]);
        assert_exit(&o, 4);
        assert!(
            text(&o).contains("OpenLineage START event") && text(&o).contains("nothing was run"),
            "{}",
            text(&o)
        );
    }
    assert_eq!(wh.query("SELECT COUNT(*) FROM _strata_runs"), runs_before);
}
