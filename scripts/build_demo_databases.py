#!/usr/bin/env python3
"""Build the SQLite databases behind the vakra-rs demo domains.

Three small, invented domains are generated from a fixed-seed PRNG so that
every run produces byte-identical files (given the same SQLite library, whose
version number is recorded in the database header):

  library         branches, authors, books, members, loans
  weather         stations, observations (one row per station and day)
  weather_alerts  stations, alerts (derived from the same synthetic weather)

Only the Python standard library is used. Output layout:

  <out>/library/library.sqlite
  <out>/weather/weather.sqlite
  <out>/weather_alerts/weather_alerts.sqlite
"""

import argparse
import datetime
import hashlib
import sqlite3
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
MASK64 = (1 << 64) - 1


class SplitMix64:
    """Tiny deterministic PRNG (SplitMix64); independent of Python's random."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def unit(self):
        """Uniform float in [0, 1) with 53 random bits."""
        return (self.next_u64() >> 11) / float(1 << 53)

    def randint(self, lo, hi):
        """Uniform integer in [lo, hi] (inclusive)."""
        return lo + self.next_u64() % (hi - lo + 1)

    def chance(self, p):
        return self.unit() < p

    def choice(self, seq):
        return seq[self.next_u64() % len(seq)]

    def weighted(self, pairs):
        """Pick from [(value, weight), ...]."""
        total = sum(w for _, w in pairs)
        x = self.unit() * total
        for value, weight in pairs:
            x -= weight
            if x < 0:
                return value
        return pairs[-1][0]

    def shuffle(self, items):
        for i in range(len(items) - 1, 0, -1):
            j = self.next_u64() % (i + 1)
            items[i], items[j] = items[j], items[i]
        return items

    def gauss_ish(self):
        """Cheap bell-shaped noise in (-1, 1): mean of three uniforms, rescaled."""
        return (self.unit() + self.unit() + self.unit()) / 1.5 - 1.0


def iso(day):
    return day.isoformat()


def add_days(day, n):
    return day + datetime.timedelta(days=n)


def day_between(rng, first, last):
    return add_days(first, rng.randint(0, (last - first).days))


ASCII_FOLD = str.maketrans({
    "à": "a", "á": "a", "â": "a", "ä": "a", "ã": "a", "å": "a", "ç": "c", "č": "c",
    "é": "e", "è": "e", "ê": "e", "ë": "e", "í": "i", "ï": "i", "î": "i", "ł": "l",
    "ñ": "n", "ó": "o", "ö": "o", "ô": "o", "ø": "o", "ō": "o", "ú": "u", "ü": "u",
    "ū": "u", "ý": "y", "ð": "d", "þ": "th", "ß": "ss", "æ": "ae", "'": "", " ": "",
})


def email_for(first, last, n):
    local = "%s.%s" % (first.lower().translate(ASCII_FOLD), last.lower().translate(ASCII_FOLD))
    return "%s%d@example.org" % (local, n)


# ---------------------------------------------------------------------------
# library
# ---------------------------------------------------------------------------

BRANCHES = [
    # name, city, opened, floor area (m²)
    ("Grande Bibliothèque Centrale", "Montréal", "1998-09-14", 3310.5),
    ("Mile-End", "Montréal", "1976-05-02", 640.25),
    ("Plateau", "Montréal", "1989-11-20", 815.0),
    ("Verdun", "Montréal", "2004-03-08", 702.4),
    ("Saint-Roch", "Québec", "1995-06-24", 1120.75),
    ("Limoilou", "Québec", "2011-01-17", 455.6),
    ("ByWard Market", "Ottawa", "1983-10-03", 980.1),
    ("Glebe", "Ottawa", "1969-04-12", 388.3),
    ("Hull", "Gatineau", "2001-08-29", 604.9),
    ("Lennoxville", "Sherbrooke", "1992-02-05", 310.0),
    ("Centre-Ville", "Trois-Rivières", "2015-09-01", 1045.35),
    ("Lévis Riverside", "Lévis", "2019-05-21", 720.8),
]

FIRST_NAMES = [
    "Zoë", "José", "Søren", "Ana", "Mika", "Łukasz", "Chloé", "Björn", "Amélie", "Ngozi",
    "Kenji", "Aroha", "Priya", "Omar", "Lena", "Tomás", "Inès", "Hana", "Malik", "Freya",
    "Gabriel", "Élodie", "Marta", "Yusuf", "Claire", "Daniel", "Sofia", "Noah", "Mei", "Rafael",
    "Ingrid", "Théo", "Aisha", "Pierre", "Nora", "Jonas",
]

LAST_NAMES = [
    "Øvergaard", "Nakamura", "Dubois", "Kowalski", "García", "Okafor", "Lindqvist", "Müller",
    "Brennan", "Sato", "Haddad", "Novák", "Costa", "Ivanova", "Fitzgerald", "Moreau", "Rahman",
    "Jansen", "Ólafsdóttir", "Whitaker", "Tremblay", "Gagnon", "Côté", "Bouchard", "Leblanc",
    "O'Neill", "Pereira", "Schäfer", "Mbeki", "Castillo",
]

AUTHOR_COUNTRIES = [
    "Canada", "France", "Japan", "Nigeria", "Sweden", "Poland", "Mexico", "Iceland",
    "Germany", "Brazil", "Ireland", "New Zealand", "India", "Egypt", "Czechia",
]

TITLE_ADJECTIVES = [
    "Silent", "Crimson", "Forgotten", "Last", "Hidden", "Winter", "Golden", "Broken", "Northern",
    "Paper", "Quiet", "Burning", "Electric", "Salt", "Distant", "Hollow", "Velvet", "Iron",
    "Wandering", "Lunar", "Amber", "Secret", "Borrowed", "Unfinished", "Glass", "Midnight",
]

TITLE_NOUNS = [
    "Harbour", "Garden", "Lighthouse", "Archive", "River", "Orchard", "Cartographer", "Atlas",
    "Kingdom", "Library", "Comet", "Violin", "Island", "Alphabet", "Observatory", "Forest",
    "Staircase", "Letters", "Clockmaker", "Tide", "Frontier", "Winter", "Daughters", "Recipe",
]

TITLE_PLACES = [
    "Montréal", "the North", "Tromsø", "the Sea", "Kraków", "Ushuaia", "the Plateau", "Reykjavík",
    "the Empty Quarter", "Saint-Roch", "Zürich", "Lisbon",
]

PUBLISHERS = [
    "Ünïcode Press", "Harbour Lane Books", "Northwind Publishing", "Éditions du Lac",
    "Penrose & Finch", "Blue Heron Press", "Kestrel House", "Säge Verlag", "Maple Leaf Editions",
    "Quill & Compass",
]

GENRES = [
    ("Fiction", 22), ("Mystery", 14), ("Science Fiction", 9), ("Fantasy", 9), ("History", 8),
    ("Biography", 6), ("Poetry", 4), ("Children", 10), ("Cookery", 4), ("Travel", 5),
    ("Science", 7), ("Graphic Novel", 2),
]

LANGUAGES = [("fr", 44), ("en", 44), ("es", 5), ("de", 4), ("ja", 3)]


def isbn13(body12):
    total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body12))
    return body12 + str((10 - total % 10) % 10)


def library_data(rng):
    authors = []
    combos = [(f, l) for f in FIRST_NAMES for l in LAST_NAMES]
    rng.shuffle(combos)
    for author_id, (first, last) in enumerate(combos[:320], start=1):
        birth = None if rng.chance(0.09) else rng.randint(1890, 2001)
        country = None if rng.chance(0.12) else rng.choice(AUTHOR_COUNTRIES)
        authors.append((author_id, first, last, birth, country))

    titles = ["The %s %s" % (a, n) for a in TITLE_ADJECTIVES for n in TITLE_NOUNS]
    titles += ["%s of %s" % (n, p) for n in TITLE_NOUNS for p in TITLE_PLACES]
    titles += ["A %s %s in %s" % (a, n, p) for a in TITLE_ADJECTIVES[:8] for n in TITLE_NOUNS[:8]
               for p in TITLE_PLACES[:4]]
    rng.shuffle(titles)

    books = []
    for book_id, title in enumerate(titles, start=1):
        u = rng.unit()
        author = authors[int(u * u * len(authors))]  # a few prolific authors
        birth = author[3]
        low = 1950 if birth is None else max(1950, birth + 20)
        year = rng.randint(min(low, 2024), 2024)
        pages = None if rng.chance(0.05) else rng.randint(48, 920)
        price = rng.randint(4, 48) + rng.choice([0.49, 0.95, 0.99, 0.5])
        rating = None if rng.chance(0.15) else round(1.0 + 4.0 * rng.unit() ** 0.6, 1)
        isbn = isbn13("978" + "".join(str(rng.randint(0, 9)) for _ in range(9)))
        books.append((
            book_id, title, author[0], rng.choice(PUBLISHERS), rng.weighted(GENRES),
            rng.weighted(LANGUAGES), year, pages, round(price, 2), rating, isbn,
            rng.randint(1, len(BRANCHES)),
        ))

    members = []
    first_join, last_join = datetime.date(2015, 1, 1), datetime.date(2024, 6, 30)
    for member_id in range(1, 901):
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        birth = rng.randint(1938, 2012)
        if rng.chance(0.04):
            tier = "staff"
        elif birth >= 2000:
            tier = "student"
        elif birth <= 1959:
            tier = "senior"
        else:
            tier = "standard"
        email = None if rng.chance(0.1) else email_for(first, last, member_id)
        members.append((member_id, first, last, email, iso(day_between(rng, first_join, last_join)),
                        rng.randint(1, len(BRANCHES)), birth, tier))

    loans = []
    first_loan, last_loan = datetime.date(2022, 1, 1), datetime.date(2024, 12, 31)
    for loan_id in range(1, 5201):
        member = rng.choice(members)
        joined = datetime.date.fromisoformat(member[4])
        loan_day = day_between(rng, max(first_loan, joined), last_loan)
        branch = member[5] if rng.chance(0.7) else rng.randint(1, len(BRANCHES))
        due = add_days(loan_day, 21)
        if rng.chance(0.04) or (loan_day > datetime.date(2024, 12, 5) and rng.chance(0.6)):
            returned, fee = None, None
        else:
            kept = rng.randint(2, 24) if rng.chance(0.85) else rng.randint(18, 60)
            returned = add_days(loan_day, kept)
            late = max(0, kept - 21)
            fee = round(min(late, 50) * 0.1, 1)
        loans.append((loan_id, rng.randint(1, len(books)), member[0], branch, iso(loan_day), iso(due),
                      None if returned is None else iso(returned), fee))

    branches = [(i, *b) for i, b in enumerate(BRANCHES, start=1)]
    return branches, authors, books, members, loans


def build_library(conn, rng):
    branches, authors, books, members, loans = library_data(rng)
    conn.executescript("""
        CREATE TABLE branches (
            branch_id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            city TEXT NOT NULL,
            opened TEXT NOT NULL,
            floor_area_m2 REAL
        );
        CREATE TABLE authors (
            author_id INTEGER PRIMARY KEY,
            first_name TEXT NOT NULL,
            last_name TEXT NOT NULL,
            birth_year INTEGER,
            country TEXT
        );
        CREATE TABLE books (
            book_id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            author_id INTEGER NOT NULL REFERENCES authors(author_id),
            publisher TEXT NOT NULL,
            genre TEXT NOT NULL,
            language TEXT NOT NULL,
            published_year INTEGER NOT NULL,
            pages INTEGER,
            price REAL NOT NULL,
            rating REAL,
            isbn TEXT NOT NULL UNIQUE,
            branch_id INTEGER NOT NULL REFERENCES branches(branch_id)
        );
        CREATE TABLE members (
            member_id INTEGER PRIMARY KEY,
            first_name TEXT NOT NULL,
            last_name TEXT NOT NULL,
            email TEXT,
            joined TEXT NOT NULL,
            home_branch_id INTEGER NOT NULL REFERENCES branches(branch_id),
            birth_year INTEGER NOT NULL,
            membership TEXT NOT NULL
        );
        CREATE TABLE loans (
            loan_id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(book_id),
            member_id INTEGER NOT NULL REFERENCES members(member_id),
            branch_id INTEGER NOT NULL REFERENCES branches(branch_id),
            loan_date TEXT NOT NULL,
            due_date TEXT NOT NULL,
            return_date TEXT,
            late_fee REAL
        );
        CREATE INDEX loans_book ON loans(book_id);
        CREATE INDEX loans_member ON loans(member_id);
        CREATE INDEX books_author ON books(author_id);
    """)
    conn.executemany("INSERT INTO branches VALUES (?, ?, ?, ?, ?)", branches)
    conn.executemany("INSERT INTO authors VALUES (?, ?, ?, ?, ?)", authors)
    conn.executemany("INSERT INTO books VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", books)
    conn.executemany("INSERT INTO members VALUES (?, ?, ?, ?, ?, ?, ?, ?)", members)
    conn.executemany("INSERT INTO loans VALUES (?, ?, ?, ?, ?, ?, ?, ?)", loans)


# ---------------------------------------------------------------------------
# weather and weather_alerts (share one synthetic climate)
# ---------------------------------------------------------------------------

STATIONS = [
    # code, name, city, country, region, lat, lon, elevation m, commissioned, operator,
    # climate: (Jan mean °C, Jul mean °C, wet-day probability, windiness)
    ("MTL01", "Montréal-Trudeau", "Montréal", "Canada", "Québec", 45.47, -73.74, 36, "1941-11-01", "Service Météo Régional", (-9.7, 21.2, 0.45, 1.0)),
    ("QBC01", "Québec-Lesage", "Québec", "Canada", "Québec", 46.79, -71.39, 74, "1943-04-15", "Service Météo Régional", (-12.4, 19.3, 0.5, 1.0)),
    ("OTT01", "Ottawa Rideau", "Ottawa", "Canada", "Ontario", 45.32, -75.67, 114, "1938-07-01", None, (-10.3, 21.0, 0.42, 0.9)),
    ("TOR01", "Toronto Island", "Toronto", "Canada", "Ontario", 43.63, -79.40, 77, "1957-01-10", "Lakeshore Instruments", (-3.7, 22.2, 0.4, 1.2)),
    ("WPG01", "Winnipeg Forks", "Winnipeg", "Canada", "Manitoba", 49.89, -97.13, 232, "1962-03-03", None, (-16.4, 19.7, 0.3, 1.1)),
    ("YZF01", "Yellowknife Bay", "Yellowknife", "Canada", "Northwest Territories", 62.46, -114.44, 206, "1975-09-09", "Northern Skies Network", (-25.6, 17.0, 0.3, 0.9)),
    ("VAN01", "Vancouver Harbour", "Vancouver", "Canada", "British Columbia", 49.29, -123.12, 3, "1925-05-20", "Ünïcode Weather Co-op", (4.1, 18.0, 0.6, 0.8)),
    ("IQA01", "Iqaluit Frobisher", "Iqaluit", "Canada", "Nunavut", 63.75, -68.54, 34, "1946-10-01", "Northern Skies Network", (-27.5, 8.2, 0.35, 1.3)),
    ("NYC01", "Central Park South", "New York", "United States", "New York", 40.78, -73.97, 40, "1869-01-01", None, (0.5, 25.3, 0.38, 0.9)),
    ("DEN01", "Denver Foothills", "Denver", "United States", "Colorado", 39.74, -104.99, 1609, "1948-06-01", None, (-1.0, 23.4, 0.22, 1.1)),
    ("PHX01", "Phoenix Downtown", "Phoenix", "United States", "Arizona", 33.45, -112.07, 331, "1954-02-01", None, (13.6, 35.0, 0.08, 0.8)),
    ("MIA01", "Miami Beach", "Miami", "United States", "Florida", 25.79, -80.13, 2, "1961-12-01", "Ünïcode Weather Co-op", (20.1, 29.0, 0.35, 1.1)),
    ("ANC01", "Anchorage Hillside", "Anchorage", "United States", "Alaska", 61.19, -149.87, 40, "1953-08-01", None, (-8.0, 15.4, 0.4, 0.9)),
    ("MEX01", "Ciudad de México Tacubaya", "Ciudad de México", "Mexico", "CDMX", 19.40, -99.19, 2309, "1952-01-01", "Servicio Climático del Valle", (14.1, 17.6, 0.2, 0.6)),
    ("REK01", "Reykjavík Harbour", "Reykjavík", "Iceland", "Höfuðborgarsvæðið", 64.15, -21.94, 52, "1920-01-01", "Ünïcode Weather Co-op", (0.1, 11.2, 0.6, 1.6)),
    ("TOS01", "Tromsø Langnes", "Tromsø", "Norway", "Troms", 69.68, 18.92, 9, "1964-11-01", None, (-3.9, 12.0, 0.6, 1.3)),
    ("BGO01", "Bergen Sentrum", "Bergen", "Norway", "Vestland", 60.39, 5.33, 12, "1904-01-01", None, (2.2, 15.5, 0.72, 1.2)),
    ("ZRH01", "Zürich Fluntern", "Zürich", "Switzerland", "Zürich", 47.38, 8.57, 556, "1864-12-01", "Alpenwetter AG", (0.3, 19.1, 0.42, 0.8)),
    ("GVA01", "Genève Rive", "Genève", "Switzerland", "Genève", 46.20, 6.15, 375, "1950-03-01", "Alpenwetter AG", (1.5, 20.4, 0.38, 1.0)),
    ("KRK01", "Kraków Balice", "Kraków", "Poland", "Małopolska", 50.08, 19.80, 237, "1964-05-01", None, (-2.0, 19.2, 0.45, 0.9)),
    ("LIS01", "Lisboa Alfama", "Lisboa", "Portugal", "Lisboa", 38.71, -9.13, 77, "1854-10-01", None, (11.6, 23.3, 0.3, 1.1)),
    ("SVQ01", "Sevilla Triana", "Sevilla", "Spain", "Andalucía", 37.38, -6.00, 8, "1951-01-01", None, (10.9, 28.2, 0.18, 0.8)),
    ("ATH01", "Athína Kentro", "Athína", "Greece", "Attikí", 37.97, 23.73, 107, "1890-01-01", None, (9.9, 28.5, 0.2, 1.0)),
    ("CAI01", "Cairo Giza", "Cairo", "Egypt", "Giza", 30.01, 31.21, 23, "1947-01-01", None, (14.0, 28.4, 0.03, 0.9)),
    ("NBO01", "Nairobi Dagoretti", "Nairobi", "Kenya", "Nairobi", -1.30, 36.76, 1798, "1954-01-01", None, (19.0, 16.4, 0.35, 0.8)),
    ("CPT01", "Cape Town Kirstenbosch", "Cape Town", "South Africa", "Western Cape", -33.99, 18.43, 46, "1957-01-01", None, (21.5, 12.5, 0.25, 1.5)),
    ("SAO01", "São Paulo Mirante", "São Paulo", "Brazil", "São Paulo", -23.50, -46.62, 792, "1945-01-01", "Rede Clima Paulista", (22.9, 16.8, 0.5, 0.7)),
    ("BUE01", "Buenos Aires Palermo", "Buenos Aires", "Argentina", "CABA", -34.58, -58.43, 25, "1906-01-01", None, (24.9, 11.0, 0.25, 1.0)),
    ("USH01", "Ushuaia Bahía", "Ushuaia", "Argentina", "Tierra del Fuego", -54.80, -68.30, 14, "1972-01-01", None, (9.6, 1.4, 0.55, 1.5)),
    ("SYD01", "Sydney Observatory Hill", "Sydney", "Australia", "New South Wales", -33.86, 151.20, 39, "1858-01-01", None, (23.5, 13.3, 0.35, 1.0)),
    ("AKL01", "Auckland Maungawhau", "Auckland", "New Zealand", "Tāmaki Makaurau", -36.88, 174.76, 196, "1962-01-01", "Ünïcode Weather Co-op", (20.1, 11.2, 0.45, 1.3)),
    ("TYO01", "Tōkyō Ōtemachi", "Tōkyō", "Japan", "Kantō", 35.69, 139.76, 25, "1875-06-01", None, (5.4, 26.9, 0.3, 0.9)),
    ("SIN01", "Singapore Marina", "Singapore", "Singapore", "Central", 1.28, 103.85, 5, "1966-01-01", None, (26.5, 28.0, 0.5, 0.6)),
    ("DEL01", "New Delhi Safdarjung", "New Delhi", "India", "Delhi", 28.58, 77.21, 216, "1948-01-01", None, (14.3, 31.5, 0.07, 0.7)),
    ("ULN01", "Ulaanbaatar Zaisan", "Ulaanbaatar", "Mongolia", "Ulaanbaatar", 47.92, 106.92, 1350, "1978-01-01", None, (-21.6, 18.4, 0.12, 1.0)),
]

OBS_FIRST = datetime.date(2024, 1, 1)
OBS_DAYS = 121  # 2024-01-01 .. 2024-04-30


def seasonal_weight(day):
    """0 at mid-January, 1 at mid-July, piecewise linear (no libm, so portable)."""
    phase = ((day.timetuple().tm_yday - 15) % 365) / 365.0
    return 2 * phase if phase <= 0.5 else 2 * (1 - phase)


def weather_observations(rng):
    """Return [(obs_id, station_id, date, tmin, tmax, precip, wind, humidity, pressure, condition, pm25)]."""
    rows = []
    obs_id = 0
    for station_id, st in enumerate(STATIONS, start=1):
        jan, jul, wet, windy = st[10]
        elevation = st[7]
        start = 0 if station_id % 11 else 20  # a couple of stations came online late
        anomaly = 0.0
        for d in range(start, OBS_DAYS):
            if rng.chance(0.015):
                continue  # occasional missing report
            day = add_days(OBS_FIRST, d)
            anomaly = 0.7 * anomaly + 2.2 * rng.gauss_ish()
            mean = jan + (jul - jan) * seasonal_weight(day) + anomaly
            spread = 3.0 + 3.0 * rng.unit()
            tmin = round(mean - spread, 1)
            tmax = round(mean + spread + 0.5 * rng.unit(), 1)
            if rng.chance(wet):
                precip = round(0.1 + 34.0 * rng.unit() ** 3, 1)
            else:
                precip = 0.0
            if rng.chance(0.03):
                precip = None
            wind = round(4.0 + 38.0 * windy * rng.unit() ** 1.6 + (12.0 if precip and precip > 15 else 0.0), 1)
            if rng.chance(0.02):
                wind = None
            humidity = min(100, max(12, int(55 + 30 * rng.gauss_ish() + (25 if precip else 0))))
            pressure = round(1013.2 - elevation / 8.3 + 12.0 * rng.gauss_ish() - (8.0 if precip else 0.0), 1)
            if precip and tmax < 1.0:
                condition = "Snow"
            elif precip and precip >= 10.0:
                condition = "Heavy rain"
            elif precip:
                condition = "Rain"
            elif wind is not None and wind >= 40.0:
                condition = "Windy"
            elif humidity >= 75:
                condition = "Fog"
            else:
                condition = rng.weighted([("Clear", 4), ("Partly cloudy", 4), ("Overcast", 3)])
            pm25 = None if rng.chance(0.05) else round((2.0 + 48.0 * rng.unit() ** 2.5) * 1e-06, 8)
            obs_id += 1
            rows.append((obs_id, station_id, iso(day), tmin, tmax, precip, wind, humidity, pressure,
                         condition, pm25))
    return rows


def station_rows():
    return [(i, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9])
            for i, s in enumerate(STATIONS, start=1)]


def build_weather(conn, rng):
    conn.executescript("""
        CREATE TABLE stations (
            station_id INTEGER PRIMARY KEY,
            code TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            city TEXT NOT NULL,
            country TEXT NOT NULL,
            region TEXT,
            latitude REAL NOT NULL,
            longitude REAL NOT NULL,
            elevation_m INTEGER NOT NULL,
            commissioned TEXT NOT NULL,
            operator TEXT
        );
        CREATE TABLE observations (
            obs_id INTEGER PRIMARY KEY,
            station_id INTEGER NOT NULL REFERENCES stations(station_id),
            obs_date TEXT NOT NULL,
            temp_min REAL NOT NULL,
            temp_max REAL NOT NULL,
            precipitation_mm REAL,
            wind_kmh REAL,
            humidity INTEGER NOT NULL,
            pressure_hpa REAL NOT NULL,
            condition TEXT NOT NULL,
            pm25_g_m3 REAL
        );
        CREATE INDEX observations_station_date ON observations(station_id, obs_date);
    """)
    conn.executemany("INSERT INTO stations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", station_rows())
    conn.executemany("INSERT INTO observations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     weather_observations(rng))


SEVERITIES = {1: "minor", 2: "moderate", 3: "severe", 4: "extreme"}


def alert_rows(observations, rng):
    rows = []
    for obs in observations:
        _, station_id, day, tmin, tmax, precip, wind, _, _, condition, _ = obs
        st = STATIONS[station_id - 1]
        city = st[2]
        candidates = []
        if tmax >= 30.0:
            candidates.append(("Heat", tmax, 1 + int((tmax - 30.0) // 3),
                               "Heat advisory for %s: highs near %.0f °C" % (city, tmax)))
        if tmin <= -20.0:
            candidates.append(("Extreme cold", tmin, 1 + int((-20.0 - tmin) // 6),
                               "Extreme cold in %s: lows of %.0f °C, wind chill lower" % (city, tmin)))
        elif tmin <= -2.0 and tmax >= 4.0:
            candidates.append(("Frost", tmin, 1, "Frost expected overnight around %s" % city))
        if wind is not None and wind >= 38.0:
            candidates.append(("Wind", wind, 1 + int((wind - 38.0) // 6),
                               "Strong gusts up to %.0f km/h expected in %s" % (wind, city)))
        if precip is not None and precip >= 18.0:
            kind = "Snow" if condition == "Snow" else "Heavy rain"
            word = "snow" if kind == "Snow" else "rain"
            candidates.append((kind, precip, 1 + int((precip - 18.0) // 5),
                               "Heavy %s: %.1f mm possible around %s" % (word, precip, city)))
        if condition == "Fog" and rng.chance(0.5):
            candidates.append(("Fog", None, 1, "Dense fog reducing visibility near %s" % st[1]))
        for alert_type, peak, level, headline in candidates:
            if not rng.chance(0.8):
                continue  # not every event gets a bulletin
            level = min(4, max(1, level))
            issued = add_days(datetime.date.fromisoformat(day), -rng.randint(0, 1))
            expires = add_days(issued, rng.randint(1, 3))
            if rng.chance(0.1):
                issuer = None
            elif st[9] and rng.chance(0.75):
                issuer = st[9]  # the station's operator issues most of its bulletins
            else:
                issuer = "Civil Protection Desk"
            population = None if rng.chance(0.15) else rng.randint(2, 900) * 1000 * level
            rows.append([station_id, alert_type, SEVERITIES[level], level, iso(issued), iso(expires),
                         headline, issuer, 1 if rng.chance(0.06) else 0, peak, population])
    rows.sort(key=lambda r: (r[4], r[0], r[1]))
    return [(i, *r) for i, r in enumerate(rows, start=1)]


def build_weather_alerts(conn, rng):
    conn.executescript("""
        CREATE TABLE stations (
            station_id INTEGER PRIMARY KEY,
            code TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            city TEXT NOT NULL,
            country TEXT NOT NULL,
            region TEXT
        );
        CREATE TABLE alerts (
            alert_id INTEGER PRIMARY KEY,
            station_id INTEGER NOT NULL REFERENCES stations(station_id),
            alert_type TEXT NOT NULL,
            severity TEXT NOT NULL,
            severity_level INTEGER NOT NULL,
            issued_on TEXT NOT NULL,
            expires_on TEXT NOT NULL,
            headline TEXT NOT NULL,
            issuer TEXT,
            cancelled INTEGER NOT NULL DEFAULT 0,
            peak_value REAL,
            population_affected INTEGER
        );
        CREATE INDEX alerts_station ON alerts(station_id);
    """)
    conn.executemany("INSERT INTO stations VALUES (?, ?, ?, ?, ?, ?)", [r[:6] for r in station_rows()])
    # Same seed as the weather domain, so alerts match the observed extremes.
    observations = weather_observations(SplitMix64(SEEDS["weather"]))
    conn.executemany("INSERT INTO alerts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     alert_rows(observations, rng))


# ---------------------------------------------------------------------------

SEEDS = {
    "library": 0x11B2A2F00D5EED01,
    "weather": 0x3EA7E2C0FFEE0042,
    "weather_alerts": 0xA1E27500BADC0DE5,
}

BUILDERS = {
    "library": build_library,
    "weather": build_weather,
    "weather_alerts": build_weather_alerts,
}


def build(domain, out_dir):
    target_dir = out_dir / domain
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / ("%s.sqlite" % domain)
    tmp = target_dir / ("%s.sqlite.tmp" % domain)
    for path in (tmp, Path(str(tmp) + "-journal")):
        if path.exists():
            path.unlink()
    conn = sqlite3.connect(str(tmp))
    try:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA page_size=4096")
        with conn:
            BUILDERS[domain](conn, SplitMix64(SEEDS[domain]))
        conn.execute("VACUUM")
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        counts = ", ".join("%s=%d" % (t, conn.execute('SELECT COUNT(*) FROM "%s"' % t).fetchone()[0])
                           for t in tables)
    finally:
        conn.close()
    if target.exists():
        target.unlink()
    tmp.replace(target)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    print("%s: %s (%s) sha256=%s" % (domain, target, counts, digest))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "databases",
                        help="output directory (default: <repo>/databases)")
    parser.add_argument("domains", nargs="*", metavar="DOMAIN",
                        help="domains to build: %s (default: all)" % ", ".join(sorted(BUILDERS)))
    args = parser.parse_args()
    unknown = [d for d in args.domains if d not in BUILDERS]
    if unknown:
        parser.error("unknown domain(s): %s" % ", ".join(unknown))
    for domain in args.domains or sorted(BUILDERS):
        build(domain, args.out)


if __name__ == "__main__":
    main()
