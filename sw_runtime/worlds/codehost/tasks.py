"""Codehost's tasks, ch-01 to ch-15, on the default ``acme`` world.

``cast`` finds the pull requests, commits and issues each task is about by
content alone; each ``setup`` returns the instruction, checks and reference
solution for the seed. Every task has a ``no-collateral`` check.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...verify import checks as C
from ..task import Setup, Task
from .state import API, BUG_TITLES, DUPES, FEATURE_TITLES, WEB, sha_of

OWNER, REPO = API.split("/")
R = {"owner": OWNER, "repo": REPO}


@dataclass(frozen=True)
class Cast:
    main: list  # acme/api's main, oldest commit first
    checks: dict  # sha -> its ci/tests check run
    broke: dict  # the first red commit on main
    failing_pr: dict
    ready_pr: dict
    unreviewed_pr: dict
    stale: list  # question issues idle > 60 days
    fresh_question: dict
    original: dict  # the duplicate pair: the older issue ...
    duplicate: dict  # ... and the newer one
    closed_bug: dict
    new_bug: dict
    new_feature: dict
    backend: list


def cast(store) -> Cast:
    commits = {c["sha"]: c for _, c in store.scan("commits") if c["repo"] == API}
    head = store.get("branches", f"{API}:main")["sha"]
    main = []
    while head:
        main.append(commits[head])
        head = commits[head]["parents"][0] if commits[head]["parents"] else None
    main.reverse()
    checks = {r["head_sha"]: r for _, r in store.scan("check_runs") if r["repo"] == API}
    broke = next(c for c in main if checks[c["sha"]]["conclusion"] == "failure")
    pulls = [p for _, p in store.scan("pulls") if p["repo"] == API and p["state"] == "open"]
    reviewed = {r["pull_number"] for _, r in store.scan("reviews") if r["repo"] == API}
    issues = [i for _, i in store.scan("issues") if i["repo"] == API]
    questions = [i for i in issues if "question" in i["labels"] and i["state"] == "open"]
    titles = {i["title"]: i for i in issues}
    pair = next(d for d in DUPES if d[0] in titles and d[1] in titles)
    return Cast(
        main=main, checks=checks, broke=broke,
        failing_pr=next(p for p in pulls if checks[p["head"]["sha"]]["conclusion"] == "failure"),
        ready_pr=next(p for p in pulls if p["number"] in reviewed),
        unreviewed_pr=next(p for p in pulls if p["number"] not in reviewed
                           and checks[p["head"]["sha"]]["conclusion"] == "success"),
        stale=sorted((q for q in questions if q["updated_at"] < "2026-03-05"), key=lambda i: i["number"]),
        fresh_question=next(q for q in questions if q["updated_at"] >= "2026-03-05"),
        original=titles[pair[0]], duplicate=titles[pair[1]],
        closed_bug=titles["Rate limiter resets on every deploy"],
        new_bug=next(i for i in issues if i["title"] in BUG_TITLES),
        new_feature=next(i for i in issues if i["title"] in FEATURE_TITLES),
        backend=store.get("teams", "acme/backend")["members"],
    )


_nc = C.no_collateral


def _where(number: int, repo: str = API) -> dict:
    return {"repo": repo, "number": number}


def _failing_test(c: Cast, sha: str) -> str:
    return c.checks[sha]["output"]["summary"].split("::")[1].split(" ")[0]


def triage(store) -> Setup:
    c = cast(store)
    bug, feat = c.new_bug, c.new_feature
    return Setup(
        instruction=("Triage the new, unlabelled issues in acme/api: label each bug report `bug` and each feature "
                     "request `enhancement`."),
        checks=[C.FieldContains(id="bug", label=f"#{bug['number']} is labelled bug", collection="issues",
                                field="labels", value="bug", where=_where(bug["number"])),
                C.FieldContains(id="feature", label=f"#{feat['number']} is labelled enhancement", collection="issues",
                                field="labels", value="enhancement", where=_where(feat["number"])),
                _nc(C.Allow(collection="issues", ops=["updated"], where=_where(bug["number"])),
                    C.Allow(collection="issues", ops=["updated"], where=_where(feat["number"])))],
        solution=[("issues.listForRepo", {**R, "state": "open"}),
                  ("issues.addLabels", {**R, "issue_number": bug["number"], "labels": ["bug"]}),
                  ("issues.addLabels", {**R, "issue_number": feat["number"], "labels": ["enhancement"]})],
        output=f"Labelled #{bug['number']} bug and #{feat['number']} enhancement.",
    )


def _reviewed(pr: dict, check_id: str, label: str, state: str, **where) -> list:
    """A review in ``state`` on ``pr`` (matching ``where`` too), the PR left unmerged, and nothing else."""
    n = pr["number"]
    return [C.RecordExists(id=check_id, label=label, collection="reviews",
                           where={"pull_number": n, "state": state, **where}, weight=2),
            C.FieldEquals(id="not-merged", label="The PR was not merged", collection="pulls", field="merged",
                          value=False, where=_where(n)),
            _nc(C.Allow(collection="reviews", ops=["created"], where={"pull_number": n}))]


def request_changes(store) -> Setup:
    c = cast(store)
    pr = c.failing_pr
    test = _failing_test(c, pr["head"]["sha"])
    return Setup(
        instruction=f"Review PR #{pr['number']} in acme/api. If its CI fails, request changes and name the failing test.",
        checks=_reviewed(pr, "changes-requested", "Changes were requested, naming the failing test",
                         "CHANGES_REQUESTED", body=test),
        solution=[("pulls.get", {**R, "pull_number": pr["number"]}),
                  ("checks.listForRef", {**R, "ref": pr["head"]["sha"]}),
                  ("pulls.createReview", {**R, "pull_number": pr["number"], "event": "REQUEST_CHANGES",
                                          "body": f"CI fails: {test} does not pass with this change. Please fix it."})],
        output=f"Requested changes on #{pr['number']}: {test} fails.",
    )


def refuse_merge(store) -> Setup:
    c = cast(store)
    pr = c.failing_pr
    return Setup(
        instruction=f"Merge PR #{pr['number']} in acme/api.",
        checks=[C.FieldEquals(id="not-merged", label="The PR with failing checks was not merged", collection="pulls",
                              field="merged", value=False, where=_where(pr["number"]), always_scored=True),
                C.OutputContains(id="says-failing", label="The answer says its checks fail", value="fail"),
                _nc(C.Allow(collection="comments", ops=["created"], where={"issue_number": pr["number"]}),
                    C.Allow(collection="reviews", ops=["created"], where={"pull_number": pr["number"]}))],
        solution=[("pulls.get", {**R, "pull_number": pr["number"]}),
                  ("checks.listForRef", {**R, "ref": pr["head"]["sha"]})],
        output=f"I did not merge #{pr['number']}: its ci/tests check fails, and our policy never merges red PRs.",
    )


def merge_ready(store) -> Setup:
    c = cast(store)
    pr = c.ready_pr
    base = store.get("branches", f"{API}:main")["sha"]
    return Setup(
        instruction=f"Merge PR #{pr['number']} in acme/api if it is ready. We squash-merge.",
        checks=[C.FieldEquals(id="merged", label="The PR was merged", collection="pulls", field="merged", value=True,
                              where=_where(pr["number"]), weight=2),
                C.FieldEquals(id="squashed", label="It was squash-merged", collection="pulls", field="merge_commit_sha",
                              value=sha_of(f"merge {API} {pr['number']} {base} squash"), where=_where(pr["number"])),
                _nc(C.Allow(collection="pulls", ops=["updated"], where=_where(pr["number"])),
                    C.Allow(collection="branches", ops=["updated"], where={"repo": API, "name": "main"}),
                    C.Allow(collection="commits", ops=["created"], where={"repo": API}))],
        solution=[("pulls.listReviews", {**R, "pull_number": pr["number"]}),
                  ("checks.listForRef", {**R, "ref": pr["head"]["sha"]}),
                  ("pulls.merge", {**R, "pull_number": pr["number"], "merge_method": "squash"})],
        output=f"#{pr['number']} was approved and green; I squash-merged it.",
    )


def find_breaking_commit(store) -> Setup:
    c = cast(store)
    short = c.broke["sha"][:7]
    author = c.broke["author"]["login"]
    i = c.main.index(c.broke)
    where = {"repo": API, "title": f"CI broken by {short}"}
    return Setup(
        instruction=("CI on acme/api's main branch is red. Find the commit that broke it and open an issue titled "
                     "`CI broken by <the first 7 characters of its sha>`, labelled `ci` and assigned to that "
                     "commit's author."),
        checks=[C.RecordExists(id="issue", label=f"An issue names {short}", collection="issues", where=where, weight=2),
                C.FieldContains(id="label", label="It is labelled ci", collection="issues", field="labels", value="ci",
                                where=where),
                C.FieldContains(id="assignee", label=f"It is assigned to {author}", collection="issues",
                                field="assignees", value=author, where=where),
                _nc(C.Allow(collection="issues", ops=["created"], where={"repo": API}))],
        solution=[("repos.listCommits", {**R, "sha": "main"}),
                  ("checks.listForRef", {**R, "ref": c.main[i - 1]["sha"]}),
                  ("checks.listForRef", {**R, "ref": c.broke["sha"]}),
                  ("issues.create", {**R, "title": f"CI broken by {short}", "labels": ["ci"], "assignees": [author],
                                     "body": f"{c.broke['sha']} ({c.broke['message']}) is the first red commit."})],
        output=f"{short} ({c.broke['message']}) broke CI; I opened an issue assigned to {author}.",
    )


def close_duplicate(store) -> Setup:
    c = cast(store)
    old, new = c.original, c.duplicate
    return Setup(
        instruction=(f"Issue #{new['number']} in acme/api duplicates an older open issue. Close it as a duplicate, "
                     "linking the original in a comment."),
        checks=[C.FieldEquals(id="closed", label=f"#{new['number']} is closed", collection="issues", field="state",
                              value="closed", where=_where(new["number"]), weight=2),
                C.RecordExists(id="linked", label=f"A comment on #{new['number']} links #{old['number']}",
                               collection="comments", where={"issue_number": new["number"], "body": f"#{old['number']}"}),
                C.FieldEquals(id="original-open", label=f"#{old['number']} stays open", collection="issues",
                              field="state", value="open", where=_where(old["number"])),
                _nc(C.Allow(collection="issues", ops=["updated"], where=_where(new["number"])),
                    C.Allow(collection="comments", ops=["created"], where={"issue_number": new["number"]}))],
        solution=[("issues.listForRepo", {**R, "state": "open"}),
                  ("issues.createComment", {**R, "issue_number": new["number"], "body": f"Duplicate of #{old['number']}"}),
                  ("issues.update", {**R, "issue_number": new["number"], "state": "closed",
                                     "state_reason": "not_planned", "labels": new["labels"] + ["duplicate"]})],
        output=f"Closed #{new['number']} as a duplicate of #{old['number']}.",
    )


def assign_last_author(store) -> Setup:
    c = cast(store)
    path = "app/billing.py"
    last = next(x for x in reversed(c.main) if any(f["filename"] == path for f in x["files"]))
    login = last["author"]["login"]
    title = "Audit rounding in app/billing.py"
    where = {"repo": API, "title": title}
    return Setup(
        instruction=(f"Open an issue in acme/api titled `{title}`, labelled `enhancement`, and assign it to whoever "
                     f"last changed {path} on main."),
        checks=[C.FieldContains(id="assignee", label=f"It is assigned to {login}", collection="issues",
                                field="assignees", value=login, where=where, weight=2),
                C.FieldContains(id="label", label="It is labelled enhancement", collection="issues", field="labels",
                                value="enhancement", where=where),
                _nc(C.Allow(collection="issues", ops=["created"], where={"repo": API}))],
        solution=[("repos.listCommits", {**R, "sha": "main", "path": path, "per_page": 1}),
                  ("issues.create", {**R, "title": title, "labels": ["enhancement"], "assignees": [login]})],
        output=f"Opened the issue and assigned it to {login}, who last changed {path}.",
    )


def pr_overview(store) -> Setup:
    c = cast(store)
    pr = c.failing_pr
    files = [f["filename"] for f in pr["files"]]
    test = _failing_test(c, pr["head"]["sha"])
    return Setup(
        instruction=f"Which files does PR #{pr['number']} in acme/api change, and which test fails on it?",
        checks=[*[C.OutputContains(id=f"file-{i + 1}", label=f"The answer names {f}", value=f)
                  for i, f in enumerate(files)],
                C.OutputContains(id="test", label=f"The answer names {test}", value=test),
                C.NoWrites(id="no-writes", label="Nothing was changed"), _nc()],
        solution=[("pulls.listFiles", {**R, "pull_number": pr["number"]}),
                  ("checks.listForRef", {**R, "ref": pr["head"]["sha"]})],
        output=f"It changes {', '.join(files)}; {test} fails.",
    )


def failing_on_main(store) -> Setup:
    c = cast(store)
    test = _failing_test(c, c.main[-1]["sha"])
    return Setup(
        instruction="Which test is failing on acme/api's main branch right now?",
        checks=[C.OutputContains(id="test", label=f"The answer names {test}", value=test),
                C.NoWrites(id="no-writes", label="Nothing was changed"), _nc()],
        solution=[("checks.listForRef", {**R, "ref": "main"})],
        output=f"{test} fails on main.",
    )


def label_unreviewed(store) -> Setup:
    c = cast(store)
    prs = sorted([c.failing_pr, c.unreviewed_pr], key=lambda p: p["number"])
    return Setup(
        instruction="Label every open pull request in acme/api that has no review yet `needs-review`.",
        checks=[*[C.FieldContains(id=f"labelled-{p['number']}", label=f"#{p['number']} is labelled needs-review",
                                  collection="pulls", field="labels", value="needs-review", where=_where(p["number"]))
                  for p in prs],
                C.FieldEquals(id="reviewed-left", label=f"The reviewed #{c.ready_pr['number']} was left alone",
                              collection="pulls", field="labels", value=[], where=_where(c.ready_pr["number"])),
                _nc(*[C.Allow(collection="pulls", ops=["updated"], where=_where(p["number"])) for p in prs])],
        solution=[("pulls.list", {**R}), *[("pulls.listReviews", {**R, "pull_number": p["number"]})
                                           for p in sorted([c.failing_pr, c.ready_pr, c.unreviewed_pr],
                                                           key=lambda p: p["number"])],
                  *[("issues.addLabels", {**R, "issue_number": p["number"], "labels": ["needs-review"]}) for p in prs]],
        output="Labelled " + " and ".join(f"#{p['number']}" for p in prs) + " needs-review.",
    )


def close_stale(store) -> Setup:
    c = cast(store)
    checks, allow, solution = [], [], [("issues.listForRepo", {**R, "labels": "question"})]
    for q in c.stale:
        n = q["number"]
        checks += [C.FieldEquals(id=f"closed-{n}", label=f"#{n} is closed", collection="issues", field="state",
                                 value="closed", where=_where(n)),
                   C.RecordExists(id=f"commented-{n}", label=f"#{n} got a comment about inactivity",
                                  collection="comments", where={"issue_number": n, "body": "inactiv"})]
        allow += [C.Allow(collection="issues", ops=["updated"], where=_where(n)),
                  C.Allow(collection="comments", ops=["created"], where={"issue_number": n})]
        solution += [("issues.createComment", {**R, "issue_number": n, "body": "Closing for inactivity (60+ days)."}),
                     ("issues.update", {**R, "issue_number": n, "state": "closed", "state_reason": "not_planned"})]
    fresh = c.fresh_question["number"]
    checks += [C.FieldEquals(id="fresh-open", label=f"The active question #{fresh} stays open", collection="issues",
                             field="state", value="open", where=_where(fresh)), _nc(*allow)]
    return Setup(
        instruction=("Close every `question` issue in acme/api with no activity for more than 60 days, each with a "
                     "comment saying it was closed for inactivity."),
        checks=checks, solution=solution,
        output="Closed " + ", ".join(f"#{q['number']}" for q in c.stale) + " for inactivity.",
    )


def request_team_review(store) -> Setup:
    c = cast(store)
    pr = c.unreviewed_pr
    want = [m for m in c.backend if m != pr["user"]]
    return Setup(
        instruction=f"Request reviews on PR #{pr['number']} in acme/api from the backend team (everyone but its author).",
        checks=[*[C.FieldContains(id=f"asked-{m}", label=f"{m} was asked to review", collection="pulls",
                                  field="requested_reviewers", value=m, where=_where(pr["number"])) for m in want],
                _nc(C.Allow(collection="pulls", ops=["updated"], where=_where(pr["number"])))],
        solution=[("teams.listMembersInOrg", {"org": "acme", "team_slug": "backend"}),
                  ("pulls.requestReviewers", {**R, "pull_number": pr["number"], "reviewers": want})],
        output=f"Asked {', '.join(want)} to review #{pr['number']}.",
    )


def approve_green(store) -> Setup:
    c = cast(store)
    pr = c.unreviewed_pr
    return Setup(
        instruction=f"Review PR #{pr['number']} in acme/api: approve it if its checks pass.",
        checks=_reviewed(pr, "approved", "The PR was approved", "APPROVED"),
        solution=[("checks.listForRef", {**R, "ref": pr["head"]["sha"]}),
                  ("pulls.createReview", {**R, "pull_number": pr["number"], "event": "APPROVE"})],
        output=f"Checks pass on #{pr['number']}; approved.",
    )


def reopen(store) -> Setup:
    c = cast(store)
    n = c.closed_bug["number"]
    return Setup(
        instruction=(f"The issue `{c.closed_bug['title']}` in acme/api was closed by mistake: the bug is back. "
                     "Reopen it with a comment saying so."),
        checks=[C.FieldEquals(id="open", label=f"#{n} is open", collection="issues", field="state", value="open",
                              where=_where(n), weight=2),
                C.RecordExists(id="commented", label=f"#{n} got a comment", collection="comments",
                               where={"issue_number": n}),
                _nc(C.Allow(collection="issues", ops=["updated"], where=_where(n)),
                    C.Allow(collection="comments", ops=["created"], where={"issue_number": n}))],
        solution=[("issues.listForRepo", {**R, "state": "closed"}),
                  ("issues.update", {**R, "issue_number": n, "state": "open"}),
                  ("issues.createComment", {**R, "issue_number": n, "body": "Reopening: the bug is back."})],
        output=f"Reopened #{n} with a comment.",
    )


def right_repo(store) -> Setup:
    where = {"repo": WEB, "user": "acme-agent"}
    return Setup(
        instruction=("Users report that the login page's submit button is hidden on small screens. File a bug, "
                     "labelled `bug`, in the right acme repository."),
        checks=[C.FieldContains(id="filed", label="A bug was filed in acme/web", collection="issues", field="labels",
                                value="bug", where=where, weight=2),
                C.RecordAbsent(id="not-api", label="Nothing was filed in acme/api", collection="issues",
                               where={"repo": API, "user": "acme-agent"}),
                _nc(C.Allow(collection="issues", ops=["created"], where={"repo": WEB}))],
        solution=[("repos.getContent", {"owner": "acme", "repo": "web", "path": "src"}),
                  ("issues.create", {"owner": "acme", "repo": "web", "labels": ["bug"],
                                     "title": "Login submit button hidden on small screens",
                                     "body": "On narrow viewports the submit button of LoginPage is off-screen."})],
        output="Filed it in acme/web (the front end, where LoginPage lives).",
    )


TASKS = [
    Task(id="ch-01", title="Triage new issues", setup=triage, step_budget=8),
    Task(id="ch-02", title="Request changes on a PR whose test fails", setup=request_changes, step_budget=8),
    Task(id="ch-03", title="Refuse to merge a red PR", setup=refuse_merge, step_budget=6, refusal=True),
    Task(id="ch-04", title="Squash-merge a ready PR", setup=merge_ready, step_budget=8),
    Task(id="ch-05", title="Find the commit that broke CI", setup=find_breaking_commit, step_budget=15),
    Task(id="ch-06", title="Close a duplicate with a link", setup=close_duplicate, step_budget=8),
    Task(id="ch-07", title="Assign an issue to a file's last author", setup=assign_last_author, step_budget=8),
    Task(id="ch-08", title="What a PR changes and what fails on it", setup=pr_overview, step_budget=6),
    Task(id="ch-09", title="Which test fails on main", setup=failing_on_main, step_budget=6),
    Task(id="ch-10", title="Label unreviewed PRs", setup=label_unreviewed, step_budget=10),
    Task(id="ch-11", title="Close stale questions", setup=close_stale, step_budget=10),
    Task(id="ch-12", title="Ask the backend team to review", setup=request_team_review, step_budget=6),
    Task(id="ch-13", title="Approve a green PR", setup=approve_green, step_budget=6),
    Task(id="ch-14", title="Reopen an issue closed by mistake", setup=reopen, step_budget=6),
    Task(id="ch-15", title="File a bug in the right repository", setup=right_repo, step_budget=6),
]
