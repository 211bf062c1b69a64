"""Codehost's data model and its default world: the ``acme`` organisation.

Reference 003's GitHub twin ships a sample ``acme/api`` repository; ours is
seeded. ``generate(seed)`` builds ``acme/api`` (a small Python service: files
at every commit, a ``main`` branch whose CI went red at one commit, pull
requests with diffs, check runs and reviews, labelled and unlabelled issues)
and ``acme/web`` (its front end), their users and teams. Names, which commit
broke CI, which test fails and the issue texts vary with the seed; only
``random.Random(seed)`` is used.

Records are keyed ``owner/repo`` (repos), ``owner/repo:sha`` (commits,
blobs), ``owner/repo#number`` (issues, pulls), ``owner/repo:name`` (labels,
branches) and ``owner/repo:id`` (check runs, comments, reviews). A custom
seed replaces all of it: then ``repos.get acme/api`` answers GitHub's 404.
"""

from __future__ import annotations

import hashlib
import random
from datetime import datetime, timedelta

COLLECTIONS = ("users", "teams", "repos", "branches", "commits", "blobs", "labels", "issues", "comments", "pulls",
               "reviews", "check_runs")
EPOCH = "2026-05-04T10:00:00.000Z"
NOW = datetime(2026, 5, 4, 10, 0, 0)
ORG = "acme"
API, WEB = "acme/api", "acme/web"
AGENT = "acme-agent"


def sha_of(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def ts(dt: datetime) -> str:
    """GitHub's timestamps: ``2026-05-04T10:00:00Z``."""
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


LOGINS = ("octo-maya", "sam-ok", "priya-r", "dholt", "nina-p", "jreyes", "lena-f", "mbell", "akarimi", "dalvarez")
LABELS = (("bug", "d73a4a", "Something isn't working"), ("enhancement", "a2eeef", "New feature or request"),
          ("duplicate", "cfd3d7", "This issue or pull request already exists"),
          ("question", "d876e3", "Further information is requested"), ("ci", "0e8a16", "Continuous integration"),
          ("needs-review", "fbca04", "Waiting for a reviewer"))
TESTS = (("tests/test_billing.py", "test_invoice_total_rounds_half_up"),
         ("tests/test_billing.py", "test_tax_is_applied_once"),
         ("tests/test_auth.py", "test_token_expiry_is_utc"),
         ("tests/test_auth.py", "test_login_rejects_empty_password"))
SOURCES = {
    "README.md": "# acme/api\n\nThe Acme billing API.\n",
    "app/__init__.py": "",
    "app/main.py": "from app import auth, billing\n\n\ndef create_app():\n    return {'auth': auth, 'billing': billing}\n",
    "app/auth.py": "import datetime\n\nTOKEN_TTL = 3600\n\n\ndef expires_at(now):\n    return now + datetime.timedelta(seconds=TOKEN_TTL)\n",
    "app/billing.py": "def invoice_total(lines, tax=0.0):\n    subtotal = sum(q * p for q, p in lines)\n    return round(subtotal * (1 + tax), 2)\n",
    "tests/test_auth.py": "def test_token_expiry_is_utc():\n    assert True\n",
    "tests/test_billing.py": "def test_invoice_total_rounds_half_up():\n    assert True\n",
    ".github/workflows/ci.yml": "name: ci\non: [push, pull_request]\njobs:\n  tests:\n    runs-on: ubuntu-latest\n",
}
CHANGES = (  # (path, message, a line that commit adds)
    ("app/billing.py", "Round totals with Decimal", "from decimal import Decimal, ROUND_HALF_UP"),
    ("app/auth.py", "Make token expiry timezone-aware", "UTC = datetime.timezone.utc"),
    ("app/main.py", "Add health endpoint", "def health():\n    return {'ok': True}"),
    ("README.md", "Document the health endpoint", "GET /health answers {\"ok\": true}."),
    ("app/billing.py", "Apply tax per line", "def line_total(q, p, tax):\n    return q * p * (1 + tax)"),
    ("tests/test_billing.py", "Test tax on discounts", "def test_tax_on_discounts():\n    assert True"),
    ("app/auth.py", "Reject empty passwords", "def check(password):\n    return bool(password)"),
    ("README.md", "Fix a typo", "Acme's billing API, with tests."),
)
BUG_TITLES = ("Invoice PDF shows the wrong currency symbol", "Token refresh returns 401 after an hour",
              "Tax applied twice on discounted lines", "Webhook retries never stop after a 410")
FEATURE_TITLES = ("Support idempotency keys on POST /invoices", "Add a CSV export of invoices",
                  "Allow API keys to be scoped per endpoint", "Paginate GET /customers with cursors")
DUPES = (("Login fails with 500 when the email has a plus sign", "500 error on login for emails containing +"),
         ("Rate limit headers missing on 429 responses", "No Retry-After header when rate limited"),
         ("Invoices endpoint times out with 10k lines", "GET /invoices is very slow for large invoices"))
QUESTIONS = ("How do I rotate an API key?", "Is there a sandbox environment?", "What's the rate limit per key?",
             "Can invoices be voided through the API?")


class _Gen:
    def __init__(self, seed: int):
        self.seed = seed
        self.rng = random.Random(seed)
        self.st = {c: {} for c in COLLECTIONS}
        self.next_id = 1000 + self.rng.randrange(1000)

    def id(self) -> int:
        self.next_id += self.rng.randrange(1, 50)
        return self.next_id

    def repo(self, full: str, description: str, login: str) -> None:
        self.st["repos"][full] = {
            "id": self.id(), "name": full.split("/")[1], "full_name": full,
            "owner": {"login": ORG, "type": "Organization"}, "private": False, "description": description,
            "default_branch": "main", "html_url": f"https://github.com/{full}", "created_at": ts(NOW - timedelta(days=400)),
            "topics": [], "has_issues": True, "allow_squash_merge": True, "allow_merge_commit": True,
            "allow_rebase_merge": False,
        }
        for name, color, desc in LABELS:
            self.st["labels"][f"{full}:{name}"] = {"id": self.id(), "repo": full, "name": name, "color": color,
                                                    "description": desc}

    def commit(self, repo: str, parent: str | None, tree: dict, message: str, author: str, when: datetime,
               changed: list) -> str:
        blobs = {}
        for path in changed:
            b = sha_of(f"blob {repo} {tree[path]}")
            blobs[path] = b
            self.st["blobs"][f"{repo}:{b}"] = {"repo": repo, "sha": b, "content": tree[path]}
        files = []
        for path in changed:
            added = tree[path].count("\n") if parent is None else 1 + tree[path].split("\n# --\n")[-1].count("\n")
            files.append({"filename": path, "status": "added" if parent is None else "modified",
                          "additions": added, "deletions": 0,
                          "patch": "@@ -0,0 +1 @@\n" + "\n".join("+" + ln for ln in tree[path].split("\n# --\n")[-1].split("\n"))})
        sha = sha_of(f"commit {repo} {parent} {message} {self.seed}")
        prev = self.st["commits"].get(f"{repo}:{parent}") if parent else None
        paths = dict(prev["tree"]) if prev else {}
        paths.update(blobs)
        self.st["commits"][f"{repo}:{sha}"] = {
            "repo": repo, "sha": sha, "message": message, "parents": [parent] if parent else [],
            "author": {"login": author, "date": ts(when)}, "tree": paths, "files": files,
        }
        return sha

    def check(self, repo: str, sha: str, ok: bool, when: datetime, failing: tuple | None = None) -> None:
        cid = self.id()
        if ok:
            out = {"title": "All tests passed", "summary": f"{self.rng.randrange(60, 90)} passed"}
        else:
            path, name = failing
            out = {"title": "1 test failed", "summary": f"FAILED {path}::{name} - AssertionError"}
        self.st["check_runs"][f"{repo}:{cid}"] = {
            "id": cid, "repo": repo, "name": "ci/tests", "head_sha": sha, "status": "completed",
            "conclusion": "success" if ok else "failure", "started_at": ts(when),
            "completed_at": ts(when + timedelta(minutes=4)), "output": out}

    def issue(self, repo: str, number: int, title: str, body: str, user: str, *, labels=(), state="open",
              age_days: int = 3, updated_days: int | None = None) -> dict:
        created = NOW - timedelta(days=age_days, hours=self.rng.randrange(1, 20))
        updated = NOW - timedelta(days=updated_days if updated_days is not None else age_days)
        rec = {"id": self.id(), "repo": repo, "number": number, "title": title, "body": body, "user": user,
               "state": state, "state_reason": "completed" if state == "closed" else None, "labels": list(labels),
               "assignees": [], "comments": 0, "created_at": ts(created), "updated_at": ts(updated),
               "closed_at": ts(updated) if state == "closed" else None}
        self.st["issues"][f"{repo}#{number}"] = rec
        return rec


def generate(seed: int) -> dict:
    g = _Gen(seed)
    rng, st = g.rng, g.st
    logins = rng.sample(LOGINS, len(LOGINS))
    for login in logins:
        st["users"][login] = {"login": login, "id": g.id(), "type": "User", "site_admin": False}
    st["users"][AGENT] = {"login": AGENT, "id": g.id(), "type": "Bot", "site_admin": False}  # who the agent is
    backend, frontend = logins[:4], logins[4:7]
    st["teams"]["acme/backend"] = {"org": ORG, "slug": "backend", "name": "Backend", "members": backend}
    st["teams"]["acme/frontend"] = {"org": ORG, "slug": "frontend", "name": "Frontend", "members": frontend}
    g.repo(API, "The Acme billing API", backend[0])
    g.repo(WEB, "The Acme web app (React)", frontend[0])

    # acme/api's main: an initial commit, then the changes; CI breaks at one of them and stays red.
    tree = dict(SOURCES)
    when = NOW - timedelta(days=30)
    head = g.commit(API, None, tree, "Initial commit", backend[0], when, sorted(tree))
    g.check(API, head, True, when)
    changes = rng.sample(CHANGES, 6)
    broke_at = rng.randrange(2, 5)
    failing = rng.choice(TESTS)
    for i, (path, message, line) in enumerate(changes):
        when += timedelta(days=rng.randrange(1, 4), hours=rng.randrange(0, 8))
        tree[path] = tree[path] + "\n# --\n" + line
        head = g.commit(API, head, tree, message, rng.choice(backend), when, [path])
        g.check(API, head, i < broke_at, when, failing)
    st["branches"][f"{API}:main"] = {"repo": API, "name": "main", "sha": head, "protected": False}

    # Pull requests off main: one whose tests fail, one approved and green, one green and unreviewed.
    number = 0

    def pr(title, body, author, ok, branch, path, line, failing_test=None):
        nonlocal number
        number += 1
        t = dict(tree)
        t[path] = t[path] + "\n# --\n" + line
        created = NOW - timedelta(days=rng.randrange(1, 5), hours=rng.randrange(1, 9))
        sha = g.commit(API, head, t, title, author, created, [path])
        st["branches"][f"{API}:{branch}"] = {"repo": API, "name": branch, "sha": sha, "protected": False}
        g.check(API, sha, ok, created + timedelta(minutes=3), failing_test)
        c = st["commits"][f"{API}:{sha}"]
        st["pulls"][f"{API}#{number}"] = {
            "id": g.id(), "repo": API, "number": number, "title": title, "body": body, "user": author,
            "state": "open", "draft": False, "merged": False, "merged_at": None, "merge_commit_sha": None,
            "head": {"ref": branch, "sha": sha}, "base": {"ref": "main", "sha": head}, "labels": [],
            "requested_reviewers": [], "created_at": ts(created), "updated_at": ts(created),
            "files": c["files"], "commits": 1}
        return st["pulls"][f"{API}#{number}"]

    def next_issue():
        nonlocal number
        number += 1
        return number

    # Issues and pulls share one sequence of numbers, as on GitHub.
    for q in rng.sample(QUESTIONS, 3):
        n = next_issue()
        stale = len([x for x in st["issues"].values() if "question" in x["labels"]]) < 2
        g.issue(API, n, q, "Asking for a customer.", rng.choice(logins[7:]), labels=["question"],
                age_days=rng.randrange(90, 120) if stale else 5, updated_days=rng.randrange(65, 89) if stale else 2)
    dupe = rng.choice(DUPES)
    g.issue(API, next_issue(), dupe[0], "Steps to reproduce: see title. Happens every time.", logins[7],
            labels=["bug"], age_days=rng.randrange(20, 40))
    g.issue(API, next_issue(), "Rate limiter resets on every deploy",
            "The limiter state lives in memory, so a deploy resets every client's budget.", logins[8],
            labels=["bug"], state="closed", age_days=25, updated_days=4)
    pr("Use banker's rounding for invoice totals", "Switches rounding mode.", backend[1], False,
                 "banker-rounding", "app/billing.py", "ROUNDING = 'ROUND_HALF_EVEN'", failing_test=rng.choice(TESTS))
    ready = pr("Cache exchange rates for an hour", "Adds a TTL cache.", backend[2], True, "rates-cache",
               "app/main.py", "RATES_TTL = 3600")
    review_id = g.id()
    st["reviews"][f"{API}:{review_id}"] = {
        "id": review_id, "repo": API, "pull_number": ready["number"], "user": backend[3], "state": "APPROVED",
        "body": "LGTM", "commit_id": ready["head"]["sha"], "submitted_at": ts(NOW - timedelta(hours=5)),
        "comments": []}
    pr("Add request ids to error responses", "Every error body carries request_id.", backend[3],
                    True, "request-ids", "app/main.py", "REQUEST_ID_HEADER = 'X-Request-Id'")
    g.issue(API, next_issue(), dupe[1], "Same as before? Returns 500.", logins[9], labels=["bug"], age_days=1)
    bug = rng.choice(BUG_TITLES)
    g.issue(API, next_issue(), bug, "Steps to reproduce:\n1. Call the endpoint\n2. See the error\n\nTraceback "
            "(most recent call last): ...", logins[8], age_days=0)
    feat = rng.choice(FEATURE_TITLES)
    g.issue(API, next_issue(), feat, "It would be great if the API could do this; we need it for our integration.",
            logins[9], age_days=0)

    # acme/web: one commit, a few issues.
    web = {"README.md": "# acme/web\n", "src/LoginPage.tsx": "export function LoginPage() { return null }\n"}
    wh = g.commit(WEB, None, web, "Initial commit", frontend[0], NOW - timedelta(days=60), sorted(web))
    g.check(WEB, wh, True, NOW - timedelta(days=60))
    st["branches"][f"{WEB}:main"] = {"repo": WEB, "name": "main", "sha": wh, "protected": False}
    g.issue(WEB, 1, "Dark mode flickers on load", "On first paint the page is white.", frontend[1], labels=["bug"],
            age_days=12)
    return st
