"""The words of the seeded site: people's names, components, and the summaries
of the issues the tasks are about.

Each role a task plays has its own pool of summaries, disjoint from the
background's (which are made from ``VERBS`` × ``OBJECTS``), so ``cast.py``
finds a role by its summary alone while the seed picks which one it is.
"""

from __future__ import annotations

FIRST = ("Dana", "Priya", "Marcus", "Elena", "Tomas", "Aisha", "Jonas", "Mei", "Rafael", "Sofia", "Kwame", "Ingrid",
         "Omar", "Lucia", "Henrik", "Yuki", "Noah", "Fatima", "Arjun", "Clara", "Mateo", "Hana", "Felix", "Zara")
LAST = ("Kim", "Novak", "Okafor", "Lindqvist", "Reyes", "Haddad", "Berg", "Tanaka", "Costa", "Mehta", "Fischer",
        "Osei", "Moreau", "Sato", "Nilsen", "Abara", "Quinn", "Duarte", "Walsh", "Ivanova", "Park", "Hale")
LOOKALIKE_SUFFIX = ("ball", "ura", "mel", "sey")  # "Dana Kim" and "Dana Kimball"

COMPONENTS = {
    "API": ("Auth", "Billing", "Webhooks", "Search", "Exports"),
    "WEB": ("Checkout", "Dashboard", "Onboarding", "Exports"),
    "OPS": ("CI", "Monitoring", "Networking"),
}
PROJECT_NAMES = {"API": "Platform API", "WEB": "Web App", "OPS": "Operations"}

VERBS = ("Refactor", "Add metrics for", "Document", "Speed up", "Add tests for", "Clean up", "Paginate",
         "Cache", "Validate input of", "Log errors in", "Localise", "Harden", "Remove dead code in", "Rate-limit")
OBJECTS = {
    "API": ("the invoice endpoint", "token refresh", "the webhook dispatcher", "the search indexer", "CSV exports",
            "the customer endpoint", "API keys", "the usage meter", "refund handling", "the audit log"),
    "WEB": ("the checkout form", "the dashboard charts", "the signup wizard", "the settings page", "the export dialog",
            "the billing page", "the navigation bar", "the team invite flow", "dark mode", "the pricing table"),
    "OPS": ("the deploy pipeline", "the alert rules", "the VPN gateway", "the backup job", "the staging cluster",
            "the log shipper", "TLS certificates", "the build cache", "the DNS zone", "the on-call runbook"),
}
LABELS = ("backend", "frontend", "tech-debt", "performance", "customer", "docs", "flaky", "infra")

# (new report, the issue it duplicates, a look-alike that differs in one detail, the word to search for)
DUPES = (
    ("Invoice CSV export times out for accounts with more than 10k invoices",
     "CSV export of invoices times out on large accounts (10k+ rows)",
     "PDF export of invoices times out on large accounts (10k+ rows)", "export"),
    ("Password reset link is already expired when the email arrives",
     "Reset-password emails contain an expired link",
     "Magic-link login emails contain an expired link", "expired"),
    ("Webhook deliveries are sent twice after a 500 from the receiver",
     "Webhooks retried twice when the endpoint answers 500",
     "Webhooks retried twice when the endpoint answers 429", "webhooks"),
)
WEB_DUPES = (
    ("Coupon code field ignores lowercase codes", "Coupon codes in lowercase are rejected at checkout"),
    ("Dashboard revenue chart shows last month twice", "Revenue chart on the dashboard repeats the previous month"),
    ("Invite email link opens a blank page", "Team invite link lands on a blank page"),
)
EPICS = (
    ("Self-serve API key rotation", ("Add an endpoint to create a second API key", "Let admins revoke an old API key",
                                     "Email admins seven days before a key expires")),
    ("Usage-based billing alerts", ("Track usage against the plan limit hourly", "Send an alert at 80% of the limit",
                                    "Show the alert history on the account")),
    ("Webhook signing v2", ("Sign webhook payloads with HMAC-SHA256", "Publish the signing secret rotation API",
                            "Document signature verification for customers")),
)
READY = ("Show invoice totals per currency", "Allow filtering customers by plan", "Return next billing date in GET /subscriptions",
         "Support idempotency keys on refunds", "Expose webhook delivery attempts", "Add a sandbox flag to API keys",
         "Sort search results by relevance", "Include tax ids in customer exports")
RELEASE = ("Retry failed payouts with backoff", "Support partial refunds on invoices", "Add EU data residency flag")
BLOCKERS = ("Provision the new payments database replica", "Upgrade the message queue to 3.12",
            "Renew the payment gateway's TLS certificate")
ROLE = {  # one summary per seed from each pool
    "review_story": ("Show a receipt link in the payment response", "Add customer notes to the invoice API"),
    "review_bug": ("Refund amount rounds down by one cent", "Invoice totals ignore the discount line"),
    "fixless_bug": ("Timezone offset wrong in webhook timestamps", "Search returns archived customers"),
    "urgent": ("Add a bulk-cancel endpoint for subscriptions", "Expose dunning status on invoices"),
    "security": ("Session token leaks in the Referer header", "Password reset token is reusable"),
    "restricted": ("Pen-test finding: SSRF in the webhook tester", "Pen-test finding: IDOR on invoice PDFs"),
    "escalation": ("Customer cannot download invoices as PDF", "Payment page shows the wrong currency"),
    "start": ("Add pagination to the refunds list", "Add an expand parameter to GET /invoices"),
    "reopen": ("Duplicate charge when the card is retried", "Currency symbol missing on receipts"),
    "fixless_done": ("Add a created_by field to invoices", "Return 409 on duplicate customer emails",
                     "Accept ISO-8601 dates in filters", "Add a locale field to customers"),
    "mine_progress": ("Migrate the invoice worker to the new queue", "Speed up the customer search index build"),
    "mine_todo": ("Write the runbook for key rotation",),
    "mine_review": ("Fix the flaky checkout end-to-end test",),
    "mine_done": ("Remove the legacy v1 auth middleware",),
    "ops_blocked": ("Move the status page to the new DNS provider", "Switch internal DNS to the new resolvers"),
    "ops_progress": ("Disk alerts fire on the wrong hosts", "Nightly backup job exceeds its window"),
    "web_high": ("Checkout button unresponsive on Safari", "Dashboard fails to load for large teams"),
    "leaver": ("Migrate billing emails to the new template", "Add retry to the invoice PDF renderer",
               "Fix the onboarding progress bar", "Audit unused API scopes", "Write the Q2 billing postmortem",
               "Rename the legacy plan codes"),
    "lookalike": ("Tidy the Exports README", "Investigate slow dashboard tiles"),
}
COMMENTS = ("Looked into this; it reproduces on staging.", "Can we pair on this tomorrow?",
            "Moving this to the next sprint if it does not fit.", "Added logs; will check after the next deploy.",
            "Customer confirmed the workaround is fine for now.", "Linked the related incident.",
            "PR is up for review.", "Blocked on the design review.", "Estimated at about two days.")
