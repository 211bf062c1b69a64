"""The names billing's customers are drawn from: people, their companies, and
pairs of first names one letter apart (the look-alikes a careless search mixes up)."""

from __future__ import annotations

FIRST = ("Maya", "Sam", "Priya", "Derek", "Theo", "Nina", "Jordan", "Lena", "Marcus", "Aisha", "Diego", "Hannah",
         "Kenji", "Olivia", "Ravi", "Sofia", "Grace", "Ethan", "Chloe", "Malik", "Yara", "Ben", "Ines", "Luca",
         "Zoe", "Omar", "Elena", "Noah", "Tara", "Felix", "Amara", "Jonah", "Mei", "Caleb", "Rosa", "Iris")
LAST = ("Lin", "Okafor", "Raman", "Holt", "Marchetti", "Patel", "Reyes", "Fischer", "Bell", "Karimi", "Alvarez",
        "Cole", "Watanabe", "Brandt", "Menon", "Costa", "Okonkwo", "Novak", "Dubois", "Johnson", "Haddad",
        "Kowalski", "Moreau", "Romano", "Whitaker", "Farouk", "Petrova", "Sato", "Quinn", "Lindgren", "Eze",
        "Weiss", "Chen", "Foster", "Delgado", "Nakamura", "Osei", "Larsen", "Varga", "Mendes", "Ibarra", "Kaur",
        "Schultz", "Tanaka", "Byrne", "Aziz", "Moretti", "Hughes", "Silva", "Park")
COMPANIES = ("Brightside Labs", "Northwind Studio", "Copperleaf", "Bluefin Analytics", "Harbor & Pine",
             "Quill Works", "Saltmarsh Media", "Orbit Dental", "Fernhill Architects", "Lumen Legal", "Kestrel Bikes",
             "Tidewater Co", "Maple Forge", "Granite Peak", "Juniper Health", "Cobalt Freight", "Silverline Tax",
             "Redwood Tutors", "Paperkite", "Stonebridge Realty", "Wildflower Bakery", "Ironclad Fitness",
             "Sparrow Design", "Beacon Clinics", "Driftwood Travel", "Hollow Oak Games", "Meridian Events",
             "Pinecone Press", "Summit Roofing", "Tinker Toys", "Vantage Audio", "Willow Yoga", "Zephyr Kites",
             "Amberlight", "Brass Monkey Bar", "Cedar Dental", "Dune Surf", "Ember Coffee", "Foxglove Florals",
             "Glacier Water", "Honeycomb HR", "Indigo Print", "Jetstream Courier", "Kiln Ceramics", "Lantern Books",
             "Mosaic Tiles", "Nimbus Cloud", "Oakmoss Spa", "Pebble Pets", "Quarry Climbing")
LOOKALIKES = (("Ana", "Anna"), ("Jon", "John"), ("Sara", "Sarah"), ("Steven", "Stephen"), ("Carla", "Karla"))
