"""The shop's catalog: product families, the same on every seed.

A family is one ``kind`` of product in one ``size`` (``whole milk``,
``1 gal``) sold under several brands, with dietary ``tags``. The substitution
rule of the policy compares products within a family, so families are where
the tasks' decisions live. The seed sets prices and stock (``state.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

ORGANIC, GF, LF, VEGAN = "organic", "gluten-free", "lactose-free", "vegan"
TAGS = (ORGANIC, GF, LF, VEGAN)
CATEGORIES = ("produce", "dairy & eggs", "bakery", "pantry", "meat & seafood", "frozen", "beverages", "snacks",
              "household", "beer & wine")
BRAND_FACTOR = {"Shopwise": 0.84, "Clover Hill": 1.0, "Sunny Acres": 1.06, "Harbor Mill": 1.1, "Casa Verde": 1.02,
                "Green Meadow": 1.18, "Bellrose": 1.12, "Nordic Bay": 1.08, "Oat & Co.": 1.05, "Fizz": 1.0}


@dataclass(frozen=True)
class Family:
    kind: str
    category: str
    size: str
    base: int  # cents, for a plain store-brand-ish product
    variants: tuple  # (brand, name, tags)
    age_restricted: bool = False


F = Family
FAMILIES = (
    F("whole milk", "dairy & eggs", "1 gal", 449, (
        ("Shopwise", "Shopwise Whole Milk", ()), ("Clover Hill", "Clover Hill Whole Milk", ()),
        ("Green Meadow", "Green Meadow Organic Whole Milk", (ORGANIC,)),
        ("Clover Hill", "Clover Hill Organic Whole Milk", (ORGANIC,)),
        ("Sunny Acres", "Sunny Acres Lactose-Free Whole Milk", (LF,)))),
    F("whole milk", "dairy & eggs", "half gal", 279, (
        ("Shopwise", "Shopwise Whole Milk", ()), ("Green Meadow", "Green Meadow Organic Whole Milk", (ORGANIC,)))),
    F("2% milk", "dairy & eggs", "1 gal", 429, (
        ("Shopwise", "Shopwise 2% Reduced Fat Milk", ()), ("Clover Hill", "Clover Hill 2% Reduced Fat Milk", ()),
        ("Green Meadow", "Green Meadow Organic 2% Milk", (ORGANIC,)))),
    F("large eggs", "dairy & eggs", "12 ct", 399, (
        ("Shopwise", "Shopwise Large Brown Eggs", ()), ("Sunny Acres", "Sunny Acres Cage-Free Large Eggs", ()),
        ("Green Meadow", "Green Meadow Organic Large Brown Eggs", (ORGANIC,)),
        ("Sunny Acres", "Sunny Acres Organic Pasture-Raised Eggs", (ORGANIC,)))),
    F("greek yogurt", "dairy & eggs", "32 oz", 599, (
        ("Shopwise", "Shopwise Plain Greek Yogurt", ()), ("Clover Hill", "Clover Hill Plain Greek Yogurt", ()),
        ("Green Meadow", "Green Meadow Organic Plain Greek Yogurt", (ORGANIC,)),
        ("Clover Hill", "Clover Hill Organic Greek Yogurt", (ORGANIC,)))),
    F("cheddar", "dairy & eggs", "8 oz", 449, (
        ("Shopwise", "Shopwise Sharp Cheddar", ()), ("Clover Hill", "Clover Hill Sharp Cheddar", ()),
        ("Harbor Mill", "Harbor Mill Aged White Cheddar", ()),
        ("Green Meadow", "Green Meadow Organic Cheddar", (ORGANIC,)),
        ("Harbor Mill", "Harbor Mill Organic Aged Cheddar", (ORGANIC,)))),
    F("butter", "dairy & eggs", "1 lb", 549, (
        ("Shopwise", "Shopwise Salted Butter", ()), ("Clover Hill", "Clover Hill Salted Butter", ()),
        ("Green Meadow", "Green Meadow Organic Salted Butter", (ORGANIC,)))),
    F("parmesan", "dairy & eggs", "5 oz", 599, (
        ("Casa Verde", "Casa Verde Parmigiano Reggiano", (GF,)), ("Shopwise", "Shopwise Grated Parmesan", (GF,)),
        ("Harbor Mill", "Harbor Mill Shaved Parmesan", (GF,)))),
    F("oat milk", "dairy & eggs", "64 oz", 499, (
        ("Oat & Co.", "Oat & Co. Original Oat Milk", (VEGAN, LF)), ("Shopwise", "Shopwise Oat Milk", (VEGAN, LF)),
        ("Green Meadow", "Green Meadow Organic Oat Milk", (ORGANIC, VEGAN, LF)))),
    F("bananas", "produce", "2 lb bunch", 149, (
        ("Shopwise", "Shopwise Bananas", ()), ("Green Meadow", "Green Meadow Organic Bananas", (ORGANIC,)))),
    F("gala apples", "produce", "3 lb bag", 549, (
        ("Shopwise", "Shopwise Gala Apples", ()), ("Sunny Acres", "Sunny Acres Gala Apples", ()),
        ("Green Meadow", "Green Meadow Organic Gala Apples", (ORGANIC,)),
        ("Sunny Acres", "Sunny Acres Organic Gala Apples", (ORGANIC,)))),
    F("baby spinach", "produce", "5 oz", 349, (
        ("Shopwise", "Shopwise Baby Spinach", ()), ("Sunny Acres", "Sunny Acres Baby Spinach", ()),
        ("Green Meadow", "Green Meadow Organic Baby Spinach", (ORGANIC,)),
        ("Sunny Acres", "Sunny Acres Organic Baby Spinach", (ORGANIC,)))),
    F("avocados", "produce", "4 ct", 499, (
        ("Shopwise", "Shopwise Hass Avocados", ()), ("Green Meadow", "Green Meadow Organic Hass Avocados", (ORGANIC,)))),
    F("strawberries", "produce", "1 lb", 399, (
        ("Shopwise", "Shopwise Strawberries", ()), ("Sunny Acres", "Sunny Acres Strawberries", ()),
        ("Green Meadow", "Green Meadow Organic Strawberries", (ORGANIC,)))),
    F("roma tomatoes", "produce", "1 lb", 299, (
        ("Shopwise", "Shopwise Roma Tomatoes", ()), ("Sunny Acres", "Sunny Acres Roma Tomatoes", ()),
        ("Green Meadow", "Green Meadow Organic Roma Tomatoes", (ORGANIC,)))),
    F("sandwich bread", "bakery", "20 oz", 399, (
        ("Shopwise", "Shopwise White Sandwich Bread", (VEGAN,)), ("Harbor Mill", "Harbor Mill Whole Wheat Bread", ()),
        ("Bellrose", "Bellrose Honey Oat Bread", ()))),
    F("sandwich bread", "bakery", "18 oz", 599, (
        ("Bellrose", "Bellrose Gluten-Free Sandwich Bread", (GF,)),
        ("Shopwise", "Shopwise Gluten-Free White Bread", (GF,)),
        ("Green Meadow", "Green Meadow Organic Gluten-Free Bread", (ORGANIC, GF)))),
    F("sourdough loaf", "bakery", "24 oz", 549, (
        ("Harbor Mill", "Harbor Mill Sourdough Loaf", (VEGAN,)), ("Bellrose", "Bellrose San Francisco Sourdough", (VEGAN,)),
        ("Shopwise", "Shopwise Sourdough Loaf", (VEGAN,)))),
    F("bagels", "bakery", "6 ct", 449, (
        ("Shopwise", "Shopwise Plain Bagels", ()), ("Bellrose", "Bellrose Everything Bagels", ()),
        ("Bellrose", "Bellrose Gluten-Free Bagels", (GF,)))),
    F("spaghetti", "pantry", "16 oz", 179, (
        ("Shopwise", "Shopwise Spaghetti", (VEGAN,)), ("Casa Verde", "Casa Verde Spaghetti", (VEGAN,)),
        ("Green Meadow", "Green Meadow Organic Spaghetti", (ORGANIC, VEGAN)))),
    F("spaghetti", "pantry", "12 oz", 329, (
        ("Casa Verde", "Casa Verde Gluten-Free Spaghetti", (GF, VEGAN)),
        ("Shopwise", "Shopwise Gluten-Free Spaghetti", (GF, VEGAN)),
        ("Bellrose", "Bellrose Brown Rice Spaghetti", (GF, VEGAN)))),
    F("marinara", "pantry", "24 oz", 399, (
        ("Casa Verde", "Casa Verde Marinara Sauce", (GF, VEGAN)), ("Shopwise", "Shopwise Marinara Sauce", (GF, VEGAN)),
        ("Harbor Mill", "Harbor Mill Tomato Basil Sauce", (GF, VEGAN)))),
    F("crackers", "snacks", "7 oz", 349, (
        ("Shopwise", "Shopwise Saltine Crackers", ()), ("Harbor Mill", "Harbor Mill Water Crackers", (VEGAN,)),
        ("Bellrose", "Bellrose Gluten-Free Crackers", (GF,)),
        ("Green Meadow", "Green Meadow Organic Rice Crackers", (ORGANIC, GF, VEGAN)),
        ("Shopwise", "Shopwise Gluten-Free Rice Crackers", (GF, VEGAN)))),
    F("peanut butter", "pantry", "16 oz", 349, (
        ("Shopwise", "Shopwise Creamy Peanut Butter", ()), ("Sunny Acres", "Sunny Acres Natural Peanut Butter", (VEGAN,)),
        ("Green Meadow", "Green Meadow Organic Peanut Butter", (ORGANIC, VEGAN)),
        ("Sunny Acres", "Sunny Acres Organic Crunchy Peanut Butter", (ORGANIC, VEGAN)))),
    F("olive oil", "pantry", "500 ml", 899, (
        ("Casa Verde", "Casa Verde Extra Virgin Olive Oil", (VEGAN,)),
        ("Shopwise", "Shopwise Extra Virgin Olive Oil", (VEGAN,)),
        ("Green Meadow", "Green Meadow Organic Extra Virgin Olive Oil", (ORGANIC, VEGAN)))),
    F("rolled oats", "pantry", "42 oz", 549, (
        ("Shopwise", "Shopwise Old-Fashioned Oats", (VEGAN,)), ("Harbor Mill", "Harbor Mill Rolled Oats", (VEGAN,)),
        ("Bellrose", "Bellrose Gluten-Free Rolled Oats", (GF, VEGAN)))),
    F("ground coffee", "pantry", "12 oz", 899, (
        ("Harbor Mill", "Harbor Mill Medium Roast Ground Coffee", ()),
        ("Shopwise", "Shopwise Medium Roast Ground Coffee", ()),
        ("Green Meadow", "Green Meadow Organic Medium Roast Coffee", (ORGANIC,)),
        ("Harbor Mill", "Harbor Mill Organic Breakfast Blend", (ORGANIC,)))),
    F("jasmine rice", "pantry", "2 lb", 399, (
        ("Shopwise", "Shopwise Jasmine Rice", (GF, VEGAN)), ("Sunny Acres", "Sunny Acres Jasmine Rice", (GF, VEGAN)),
        ("Green Meadow", "Green Meadow Organic Jasmine Rice", (ORGANIC, GF, VEGAN)))),
    F("chicken breast", "meat & seafood", "1.5 lb", 899, (
        ("Shopwise", "Shopwise Boneless Chicken Breast", ()),
        ("Sunny Acres", "Sunny Acres Air-Chilled Chicken Breast", ()),
        ("Green Meadow", "Green Meadow Organic Chicken Breast", (ORGANIC,)))),
    F("salmon fillet", "meat & seafood", "1 lb", 1299, (
        ("Nordic Bay", "Nordic Bay Atlantic Salmon Fillet", ()), ("Shopwise", "Shopwise Atlantic Salmon Fillet", ()),
        ("Nordic Bay", "Nordic Bay Wild Sockeye Salmon", ()))),
    F("ground beef", "meat & seafood", "1 lb", 699, (
        ("Shopwise", "Shopwise 85% Lean Ground Beef", ()), ("Sunny Acres", "Sunny Acres Grass-Fed Ground Beef", ()),
        ("Green Meadow", "Green Meadow Organic Ground Beef", (ORGANIC,)))),
    F("frozen peas", "frozen", "16 oz", 199, (
        ("Shopwise", "Shopwise Sweet Peas", (VEGAN,)), ("Sunny Acres", "Sunny Acres Garden Peas", (VEGAN,)),
        ("Green Meadow", "Green Meadow Organic Peas", (ORGANIC, VEGAN)))),
    F("vanilla ice cream", "frozen", "1.5 qt", 549, (
        ("Clover Hill", "Clover Hill Vanilla Bean Ice Cream", ()), ("Shopwise", "Shopwise Vanilla Ice Cream", ()),
        ("Green Meadow", "Green Meadow Organic Vanilla Ice Cream", (ORGANIC,)))),
    F("sparkling water", "beverages", "12 pack", 549, (
        ("Shopwise", "Shopwise Lime Sparkling Water", (VEGAN,)), ("Harbor Mill", "Harbor Mill Lime Seltzer", (VEGAN,)),
        ("Bellrose", "Bellrose Lime Sparkling Water", (VEGAN,)))),
    F("orange juice", "beverages", "52 oz", 449, (
        ("Sunny Acres", "Sunny Acres Orange Juice", (VEGAN,)), ("Shopwise", "Shopwise Orange Juice", (VEGAN,)),
        ("Green Meadow", "Green Meadow Organic Orange Juice", (ORGANIC, VEGAN)))),
    F("cola", "beverages", "12 pack", 649, (
        ("Fizz", "Fizz Cola", (VEGAN,)), ("Shopwise", "Shopwise Cola", (VEGAN,)))),
    F("tortilla chips", "snacks", "13 oz", 399, (
        ("Casa Verde", "Casa Verde Tortilla Chips", (GF, VEGAN)), ("Shopwise", "Shopwise Tortilla Chips", (GF, VEGAN)),
        ("Green Meadow", "Green Meadow Organic Blue Corn Chips", (ORGANIC, GF, VEGAN)))),
    F("hummus", "snacks", "10 oz", 399, (
        ("Casa Verde", "Casa Verde Classic Hummus", (GF, VEGAN)), ("Shopwise", "Shopwise Classic Hummus", (GF, VEGAN)))),
    F("paper towels", "household", "6 rolls", 1099, (
        ("Shopwise", "Shopwise Paper Towels", ()), ("Bellrose", "Bellrose Select-a-Size Paper Towels", ()))),
    F("dish soap", "household", "19 fl oz", 349, (
        ("Shopwise", "Shopwise Dish Soap", ()), ("Bellrose", "Bellrose Free & Clear Dish Soap", ()))),
    F("red wine", "beer & wine", "750 ml", 1499, (
        ("Casa Verde", "Casa Verde Rioja Crianza", (VEGAN,)), ("Bellrose", "Bellrose Cabernet Sauvignon", ()),
        ("Shopwise", "Shopwise Merlot", ())), age_restricted=True),
    F("ipa beer", "beer & wine", "6 pack", 1099, (
        ("Harbor Mill", "Harbor Mill Hazy IPA", (VEGAN,)), ("Shopwise", "Shopwise West Coast IPA", (VEGAN,))),
      age_restricted=True),
)

# Families whose organic products can be planted as "out of stock, with a
# substitute" or "out of stock, without one" (two organic brands, and a
# cheaper non-organic one as the tempting wrong pick).
SWAPPABLE = tuple(f for f in FAMILIES if sum(ORGANIC in v[2] for v in f.variants) >= 2
                  and any(ORGANIC not in v[2] for v in f.variants))
