"""The words helpdesk's records are made of: names, companies, products and
the subjects of background tickets.

The planted situations (``plant.py``) use phrases that no background ticket
uses (``Wrong size``, ``Where is my order``, the recalled stove's name...),
so ``cast.py`` can find them by content alone.
"""

from __future__ import annotations

SUBDOMAIN = "brightwater"
COMPANY = "Brightwater Outfitters"
DOMAIN = "brightwater-outfitters.com"

FIRST = (
    "Maya", "Sam", "Priya", "Derek", "Theo", "Nina", "Jordan", "Lena", "Marcus", "Aisha", "Diego", "Hannah",
    "Kenji", "Olivia", "Ravi", "Sofia", "Grace", "Ethan", "Chloe", "Malik", "Yara", "Ben", "Ines", "Luca",
    "Zoe", "Omar", "Elena", "Noah", "Tara", "Felix", "Amara", "Jonah", "Mei", "Caleb", "Rosa", "Iris",
    "Hugo", "Leila", "Viktor", "Naomi", "Arjun", "Clara", "Mateo", "Freya", "Kofi", "Ada", "Soren", "Lucia",
    "Emeka", "Hana", "Pablo", "Ingrid", "Tomas", "Wren", "Idris", "Maren", "Rafael", "Anika", "Dmitri", "Esme",
)
LAST = (
    "Lin", "Okafor", "Raman", "Holt", "Marchetti", "Patel", "Reyes", "Fischer", "Bell", "Karimi", "Alvarez",
    "Cole", "Watanabe", "Brandt", "Menon", "Costa", "Okonkwo", "Novak", "Dubois", "Johnson", "Haddad",
    "Kowalski", "Moreau", "Romano", "Whitaker", "Farouk", "Petrova", "Sato", "Quinn", "Lindgren", "Eze",
    "Weiss", "Chen", "Foster", "Delgado", "Nakamura", "Berg", "Castillo", "Demir", "Ferreira", "Gallo",
    "Hughes", "Ivanova", "Jansen", "Keller", "Larsen", "Mendes", "Nilsen", "Ortiz", "Pham", "Rossi",
)
# Pairs of first names a hurried reader mistakes for each other (neither is a substring of the other
# once a surname follows): the look-alike customers.
LOOKALIKE_FIRST = (("Jon", "John"), ("Katherine", "Catherine"), ("Steven", "Stephen"), ("Brian", "Bryan"),
                   ("Allan", "Alan"), ("Jeffrey", "Geoffrey"), ("Carla", "Karla"), ("Eric", "Erik"))
# First names three customers share (hd-14 asks which of them called).
SHARED_FIRST = ("Taylor", "Alex", "Jamie", "Morgan", "Casey", "Robin")
MAIL_HOSTS = ("gmail.com", "outlook.com", "yahoo.com", "proton.me", "icloud.com", "fastmail.com")

ORGS = (
    "Northwind Traders", "Cascade Guides", "Summit Schools", "Blue Heron Lodge", "Granite Peak Rescue",
    "Redwood Scouts", "Lakeside Rowing Club", "Timberline Tours", "Osprey Adventure Co", "Harbor Light Camps",
    "Silver Birch Outfitters", "Copper Canyon Ranch", "Maple Ridge College", "Evergreen Trail Runners",
    "Driftwood Kayaks", "Alpine Youth League", "Stonebridge Hiking Club", "Bright Meadow Farms",
)
# How a non-VIP look-alike of a VIP organisation is named (hd-10's trap).
ORG_LOOKALIKE = {"Traders": "Trading", "Guides": "Guiding", "Schools": "School District", "Lodge": "Lodges",
                 "Rescue": "Rescue Team", "Scouts": "Scouting", "Club": "Society", "Tours": "Touring",
                 "Co": "Collective", "Camps": "Camping", "Outfitters": "Outfitting", "Ranch": "Ranches",
                 "College": "Academy", "Runners": "Running", "Kayaks": "Kayaking", "League": "Leagues",
                 "Farms": "Farming"}

GROUPS = ("Support", "Billing", "Returns", "Technical", "Priority Support")

PRODUCTS = {  # custom field "Product" option -> things customers write about
    "tents": ("Ridgeback 2P tent", "Basecamp 4P tent", "Skyline ultralight tent"),
    "backpacks": ("Alpine 40L backpack", "Daytripper 22L pack", "Expedition 65L pack"),
    "footwear": ("Granite hiking boots", "Trailrunner shoes", "Riverbed sandals"),
    "apparel": ("Stormshell rain jacket", "Thermal base layer", "Windbreaker hoodie"),
    "electronics": ("Beacon headlamp", "Solar power bank", "Weather radio"),
}
STOVES = ("TrailLite", "EmberLite", "PeakFlame", "CampBlaze")  # the recalled stove (hd-09): one per seed
WATCHES = ("Summit GPS watch", "Ridgeline GPS watch", "Trailhead GPS watch")  # hd-16's product

# Background tickets: (subject template, description template, product field). {p} is a product.
BACKGROUND = {
    "Billing": (
        ("Question about my invoice",
         "Hi, my invoice for the {p} lists a shipping fee I did not expect. Can you explain?"),
        ("Payment declined at first try", "My card was declined once before the {p} order went through. Is that ok?"),
        ("Gift card balance", "How much is left on my gift card? I used part of it for the {p}."),
        ("Tax on my receipt", "The sales tax on my {p} receipt looks high. Could you check it?"),
    ),
    "Returns": (
        ("Exchange for a different size", "The {p} is too small. Can I exchange it for the next size up?"),
        ("Return window question", "How long do I have to send back the {p}? I have not opened it."),
        ("Store credit instead of refund", "I would like store credit for the {p} I am returning."),
    ),
    "Technical": (
        ("Battery drains quickly", "The {p} battery is empty after a day even when switched off."),
        ("Firmware update stuck", "The {p} firmware update stops at 80 percent every time."),
        ("Charging port loose", "The charging port on my {p} feels loose and charging is unreliable."),
    ),
    "Support": (
        ("Care instructions", "How should I wash and store the {p} so it lasts?"),
        ("Product recommendation", "I am planning a week in the mountains. Is the {p} right for that?"),
        ("Warranty length", "How long is the warranty on the {p}?"),
        ("Missing manual", "My {p} came without the printed manual. Is there a copy online?"),
        ("Store opening hours", "Is your flagship store open on public holidays? I want to try the {p}."),
    ),
}
AGENT_REPLIES = (
    "Thanks for reaching out! I have looked into this and will get back to you shortly.",
    "Thank you for the details. Could you send us a photo so we can help further?",
    "Happy to help. Here is what I found, let me know if that answers it.",
    "Thanks for your patience, this is now sorted on our side.",
)
CUSTOMER_FOLLOWUPS = ("Thanks, that helps.", "Here is the photo you asked for.", "Any update on this?",
                      "Great, all good now.")
