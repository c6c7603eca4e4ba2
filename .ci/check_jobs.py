#!/usr/bin/env python3
"""The ready-made jobs of docs/sweeps.md, checked without their schedulers: the Kubernetes
indexed Job parses as YAML with the fields an indexed Job needs (apiVersion batch/v1, kind Job,
completionMode Indexed, as many completions as `--shards`, `--shard auto`, a restart policy a
Job takes), the GitHub workflow parses with a matrix as long as the N of its `--shard I/N` and a
merge job after it, and the Slurm script asks for an array and reads it with `--shard auto` (the
Slurm array itself runs in .ci/slurm). Needs PyYAML. Exit 1 naming what is wrong."""

import re
import subprocess
import sys

import yaml

errors = []


def check(ok, what):
    if not ok:
        errors.append(what)


def value_after(command, flag):
    return command[command.index(flag) + 1] if flag in command else None


with open("examples/k8s/sweep-job.yaml", encoding="utf-8") as f:
    docs = [d for d in yaml.safe_load_all(f) if d]
job = docs[0]
check(job.get("apiVersion") == "batch/v1", "k8s: apiVersion is not batch/v1")
check(job.get("kind") == "Job", "k8s: kind is not Job")
spec = job.get("spec", {})
check(spec.get("completionMode") == "Indexed", "k8s: completionMode is not Indexed (JOB_COMPLETION_INDEX needs it)")
pod = spec.get("template", {}).get("spec", {})
check(pod.get("restartPolicy") in ("Never", "OnFailure"), "k8s: a Job's pods restart Never or OnFailure")
containers = pod.get("containers", [])
check(len(containers) == 1, "k8s: one container")
command = [str(c) for c in containers[0].get("command", [])] if containers else []
check(command[:2] == ["ctxbench", "sweep"], "k8s: the container runs ctxbench sweep")
check(value_after(command, "--shard") == "auto", "k8s: --shard auto")
shards = value_after(command, "--shards")
check(shards is not None and shards.isdigit(), "k8s: --shards N")
check(str(spec.get("completions")) == shards, f"k8s: completions ({spec.get('completions')}) is not --shards ({shards})")
check(str(spec.get("parallelism")) == shards, "k8s: parallelism is not --shards")
mounts = {m["name"]: m["mountPath"] for m in containers[0].get("volumeMounts", [])} if containers else {}
volumes = {v["name"] for v in pod.get("volumes", [])}
check(set(mounts) <= volumes and mounts, "k8s: every mount has its volume")
out = value_after(command, "--out") or ""
check(any(out.startswith(path) for path in mounts.values()), "k8s: --out is on the shared volume")

with open("examples/github/sweep.yml", encoding="utf-8") as f:
    workflow = yaml.safe_load(f)
jobs = workflow.get("jobs", {})
matrix = jobs.get("shard", {}).get("strategy", {}).get("matrix", {}).get("shard", [])
runs = " ".join(step.get("run", "") for step in jobs.get("shard", {}).get("steps", []))
found = re.search(r"--shard \$\{\{ matrix\.shard \}\}/(\d+)", runs)
check(found is not None, "github: the shard job runs --shard ${{ matrix.shard }}/N")
check(found is not None and matrix == list(range(1, int(found.group(1)) + 1)), "github: the matrix is 1..N")
check(jobs.get("merge", {}).get("needs") == "shard", "github: merge needs the shards")
merge_runs = " ".join(step.get("run", "") for step in jobs.get("merge", {}).get("steps", []))
check("ctxbench merge fleet" in merge_runs, "github: the merge job merges the folder")

with open("examples/slurm/sweep.sbatch", encoding="utf-8") as f:
    sbatch = f.read()
check(re.search(r"^#SBATCH --array=1-\d+$", sbatch, re.M) is not None, "slurm: #SBATCH --array=1-N")
check("--shard auto" in sbatch, "slurm: --shard auto")
check(subprocess.run(["bash", "-n", "examples/slurm/sweep.sbatch"]).returncode == 0, "slurm: bash -n")

if errors:
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    sys.exit(1)
print("the ready-made jobs: the Kubernetes indexed Job, the GitHub matrix and the Slurm array check out")
