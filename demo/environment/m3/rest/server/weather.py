from fastapi import APIRouter, HTTPException, Query, Request
import sqlite3

app = APIRouter()

try:
    conn = sqlite3.connect('db/weather/weather.sqlite')
    cursor = conn.cursor()
except Exception as e:
    print(f"Warning: could not connect to database: {e}")
    conn = None
    cursor = None

# Endpoint to count the stations of a country
@app.get("/v1/weather/station_count_by_country", operation_id="get_station_count_by_country", summary="Returns the number of weather stations operating in the given country.")
async def get_station_count_by_country(country: str = Query(..., description="Country of the station")):
    cursor.execute("SELECT COUNT(station_id) FROM stations WHERE country = ?", (country,))
    result = cursor.fetchone()
    if not result:
        return {"count": []}
    return {"count": result[0]}

# Endpoint to list the station names of a country
@app.get("/v1/weather/station_names_by_country", operation_id="get_station_names_by_country", summary="Lists the names of the weather stations located in the given country, in alphabetical order.")
async def get_station_names_by_country(country: str = Query(..., description="Country of the station")):
    cursor.execute("SELECT name FROM stations WHERE country = ? ORDER BY name", (country,))
    result = cursor.fetchall()
    if not result:
        return {"stations": []}
    return {"stations": [row[0] for row in result]}

# Endpoint to get a station by code
@app.get("/v1/weather/station_by_code", operation_id="get_station_by_code", summary="Looks up a station by its five-character code and returns its name, city, country, latitude, longitude and elevation in metres.")
async def get_station_by_code(code: str = Query(..., description="Station code such as MTL01")):
    cursor.execute("SELECT name, city, country, latitude, longitude, elevation_m FROM stations WHERE code = ?", (code,))
    result = cursor.fetchone()
    if not result:
        return {"station": []}
    return {"station": result}

# Endpoint to get one day of observations at a station
@app.get("/v1/weather/daily_observation", operation_id="get_daily_observation", summary="Returns the minimum and maximum temperature, precipitation, wind speed and sky condition reported by a station for one date. Precipitation and wind may be null when the sensor did not report.")
async def get_daily_observation(code: str = Query(..., description="Station code"), obs_date: str = Query(..., description="Observation date in YYYY-MM-DD format")):
    cursor.execute("SELECT T2.temp_min, T2.temp_max, T2.precipitation_mm, T2.wind_kmh, T2.condition FROM stations AS T1 INNER JOIN observations AS T2 ON T1.station_id = T2.station_id WHERE T1.code = ? AND T2.obs_date = ?", (code, obs_date))
    result = cursor.fetchone()
    if not result:
        return {"observation": []}
    return {"temp_min": result[0], "temp_max": result[1], "precipitation_mm": result[2], "wind_kmh": result[3], "condition": result[4]}

# Endpoint to get the average daily maximum for a month
@app.get("/v1/weather/average_max_temperature_by_month", operation_id="get_average_max_temperature_by_month", summary="Calculates the mean of the daily maximum temperatures (in degrees Celsius) recorded by a station during one month.")
async def get_average_max_temperature_by_month(code: str = Query(..., description="Station code"), month: str = Query(..., description="Month in YYYY-MM format")):
    cursor.execute("SELECT AVG(T2.temp_max) FROM stations AS T1 INNER JOIN observations AS T2 ON T1.station_id = T2.station_id WHERE T1.code = ? AND STRFTIME('%Y-%m', T2.obs_date) = ?", (code, month))
    result = cursor.fetchone()
    if not result:
        return {"average_temp_max": []}
    return {"average_temp_max": result[0]}

# Endpoint to get the precipitation total over a period
@app.get("/v1/weather/total_precipitation", operation_id="get_total_precipitation", summary="Adds up the precipitation in millimetres measured by a station between two dates, both inclusive. Days without a reading count as zero.")
async def get_total_precipitation(code: str = Query(..., description="Station code"), start_date: str = Query(..., description="First date in YYYY-MM-DD format"), end_date: str = Query(..., description="Last date in YYYY-MM-DD format")):
    cursor.execute("SELECT TOTAL(T2.precipitation_mm) FROM stations AS T1 INNER JOIN observations AS T2 ON T1.station_id = T2.station_id WHERE T1.code = ? AND T2.obs_date BETWEEN ? AND ?", (code, start_date, end_date))
    result = cursor.fetchone()
    if not result:
        return {"total_precipitation_mm": []}
    return {"total_precipitation_mm": result[0]}

# Endpoint to get the hottest days at a station
@app.get("/v1/weather/hottest_days", operation_id="get_hottest_days", summary="Returns the days with the highest maximum temperature at a station together with that temperature, hottest first.")
async def get_hottest_days(code: str = Query(..., description="Station code"), limit: int = Query(5, description="Number of days to return")):
    cursor.execute("SELECT T2.obs_date, T2.temp_max FROM stations AS T1 INNER JOIN observations AS T2 ON T1.station_id = T2.station_id WHERE T1.code = ? ORDER BY T2.temp_max DESC, T2.obs_date LIMIT ?", (code, limit))
    result = cursor.fetchall()
    if not result:
        return {"days": []}
    return {"days": [{"date": row[0], "temp_max": row[1]} for row in result]}

# Endpoint to get the share of wet days
@app.get("/v1/weather/wet_day_percentage", operation_id="get_wet_day_percentage", summary="Computes the percentage of reporting days on which a station measured more precipitation than the given threshold in millimetres.")
async def get_wet_day_percentage(code: str = Query(..., description="Station code"), threshold_mm: float = Query(..., description="Precipitation threshold in millimetres")):
    cursor.execute("SELECT CAST(SUM(IIF(T2.precipitation_mm > ?, 1, 0)) AS REAL) * 100 / COUNT(T2.obs_id) FROM stations AS T1 INNER JOIN observations AS T2 ON T1.station_id = T2.station_id WHERE T1.code = ?", (threshold_mm, code))
    result = cursor.fetchone()
    if not result:
        return {"percentage": []}
    return {"percentage": result[0]}

# Endpoint to find the stations nearest to a point
@app.get("/v1/weather/nearest_stations", operation_id="get_nearest_stations", summary="Finds the stations closest to a latitude/longitude pair, measured as a straight-line distance in degrees, and returns their codes, names and distances.")
async def get_nearest_stations(latitude: float = Query(..., description="Latitude in decimal degrees"), longitude: float = Query(..., description="Longitude in decimal degrees"), limit: int = Query(5, description="Number of stations to return")):
    cursor.execute("SELECT code, name, SQRT(POWER(latitude - ?, 2) + POWER(longitude - ?, 2)) AS distance FROM stations ORDER BY distance LIMIT ?", (latitude, longitude, limit))
    result = cursor.fetchall()
    if not result:
        return {"stations": []}
    return {"stations": result}

# Endpoint to count the sky conditions at a station
@app.get("/v1/weather/condition_counts", operation_id="get_condition_counts", summary="Counts how many days a station reported each sky condition (Clear, Rain, Snow, Fog and so on), most frequent first.")
async def get_condition_counts(code: str = Query(..., description="Station code")):
    cursor.execute("SELECT T2.condition, COUNT(T2.obs_id) AS days FROM stations AS T1 INNER JOIN observations AS T2 ON T1.station_id = T2.station_id WHERE T1.code = ? GROUP BY T2.condition ORDER BY days DESC, T2.condition", (code,))
    result = cursor.fetchall()
    if not result:
        return {"conditions": []}
    return {"conditions": [{"condition": row[0], "days": row[1]} for row in result]}

# Endpoint to get the windiest station on a date
@app.get("/v1/weather/windiest_station_on_date", operation_id="get_windiest_station_on_date", summary="Returns the station that reported the strongest wind on the given date, with the city and the wind speed in km/h.")
async def get_windiest_station_on_date(obs_date: str = Query(..., description="Observation date in YYYY-MM-DD format")):
    cursor.execute("SELECT T1.name, T1.city, T2.wind_kmh FROM stations AS T1 INNER JOIN observations AS T2 ON T1.station_id = T2.station_id WHERE T2.obs_date = ? AND T2.wind_kmh IS NOT NULL ORDER BY T2.wind_kmh DESC LIMIT 1", (obs_date,))
    result = cursor.fetchone()
    if not result:
        return {"station": []}
    return {"name": result[0], "city": result[1], "wind_kmh": result[2]}

# Endpoint to search stations by name
@app.get("/v1/weather/stations_by_name_pattern", operation_id="get_stations_by_name_pattern", summary="Searches station names with a SQL LIKE pattern, where % matches any run of characters and _ matches one character, and returns the matching codes.")
async def get_stations_by_name_pattern(pattern: str = Query(..., description="LIKE pattern for the station name, e.g. %Harbour%")):
    cursor.execute("SELECT code FROM stations WHERE name LIKE ? ORDER BY code", (pattern,))
    result = cursor.fetchall()
    if not result:
        return {"codes": []}
    return {"codes": [row[0] for row in result]}

# Endpoint to count days with a large temperature swing
@app.get("/v1/weather/large_swing_day_count", operation_id="get_large_swing_day_count", summary="Counts the days on which the difference between the daily maximum and minimum temperature at a station exceeded the given number of degrees.")
async def get_large_swing_day_count(code: str = Query(..., description="Station code"), min_swing: float = Query(..., description="Minimum difference between maximum and minimum temperature, in degrees Celsius")):
    cursor.execute("SELECT COUNT(T2.obs_id) FROM stations AS T1 INNER JOIN observations AS T2 ON T1.station_id = T2.station_id WHERE T1.code = ? AND T2.temp_max - T2.temp_min > ?", (code, min_swing))
    result = cursor.fetchone()
    if not result:
        return {"count": []}
    return {"count": result[0]}

# Endpoint to get the running precipitation total for a month
@app.get("/v1/weather/cumulative_precipitation", operation_id="get_cumulative_precipitation", summary="Lists every reporting day of one month at a station with that day's precipitation and the running total since the start of the month.")
async def get_cumulative_precipitation(code: str = Query(..., description="Station code"), month: str = Query(..., description="Month in YYYY-MM format")):
    cursor.execute("SELECT T2.obs_date, T2.precipitation_mm, SUM(T2.precipitation_mm) OVER (ORDER BY T2.obs_date) FROM stations AS T1 INNER JOIN observations AS T2 ON T1.station_id = T2.station_id WHERE T1.code = ? AND STRFTIME('%Y-%m', T2.obs_date) = ? ORDER BY T2.obs_date", (code, month))
    result = cursor.fetchall()
    if not result:
        return {"days": []}
    return {"days": result}

# Endpoint to get the highest and the lowest station
@app.get("/v1/weather/elevation_extremes", operation_id="get_elevation_extremes", summary="Returns the names of the highest and of the lowest station in the network, in that order.")
async def get_elevation_extremes():
    cursor.execute("SELECT name FROM (SELECT name FROM stations ORDER BY elevation_m DESC LIMIT 1) UNION ALL SELECT name FROM (SELECT name FROM stations ORDER BY elevation_m ASC LIMIT 1)")
    result = cursor.fetchall()
    if not result:
        return {"stations": []}
    return {"stations": [row[0] for row in result]}

# Endpoint to get the average fine-particle concentration in a country
@app.get("/v1/weather/average_pm25_by_country", operation_id="get_average_pm25_by_country", summary="Calculates the average fine-particle (PM2.5) concentration, in grams per cubic metre, measured by the stations of a country.")
async def get_average_pm25_by_country(country: str = Query(..., description="Country of the station")):
    cursor.execute("SELECT AVG(T2.pm25_g_m3) FROM stations AS T1 INNER JOIN observations AS T2 ON T1.station_id = T2.station_id WHERE T1.country = ?", (country,))
    result = cursor.fetchone()
    if not result:
        return {"average_pm25": []}
    return {"average_pm25": result[0]}

# Endpoint to list the conditions seen in a month
@app.get("/v1/weather/conditions_in_month", operation_id="get_conditions_in_month", summary="Returns a comma-separated list of the distinct sky conditions a station reported during one month.")
async def get_conditions_in_month(code: str = Query(..., description="Station code"), month: str = Query(..., description="Month in YYYY-MM format")):
    cursor.execute("SELECT GROUP_CONCAT(DISTINCT T2.condition) FROM stations AS T1 INNER JOIN observations AS T2 ON T1.station_id = T2.station_id WHERE T1.code = ? AND STRFTIME('%Y-%m', T2.obs_date) = ?", (code, month))
    result = cursor.fetchone()
    if not result:
        return {"conditions": []}
    return {"conditions": result[0]}

# Endpoint to count days whose temperature range contains a value
@app.get("/v1/weather/days_crossing_temperature", operation_id="get_days_crossing_temperature", summary="Counts the days on which a station's temperature passed through the given value, that is, the daily minimum was at or below it and the daily maximum at or above it. Useful for freeze-thaw cycles at 0 degrees.")
async def get_days_crossing_temperature(temperature: float = Query(..., description="Temperature in degrees Celsius"), code: str = Query(..., description="Station code")):
    cursor.execute("SELECT COUNT(T2.obs_id) FROM stations AS T1 INNER JOIN observations AS T2 ON T1.station_id = T2.station_id WHERE T1.code = ? AND T2.temp_min <= ? AND T2.temp_max >= ?", (code, temperature, temperature))
    result = cursor.fetchone()
    if not result:
        return {"count": []}
    return {"count": result[0]}

# Endpoint to get the stations run by an operator
@app.get("/v1/weather/stations_by_operator", operation_id="get_stations_by_operator", summary="Lists the code, city and commissioning date of the stations run by the given operator. Without an operator the stations with no recorded operator are listed.")
async def get_stations_by_operator(operator: str = Query(None, description="Name of the operating organisation; leave out for stations with no recorded operator")):
    cursor.execute("SELECT code, city, commissioned FROM stations WHERE operator IS ? ORDER BY commissioned", (operator,))
    result = cursor.fetchall()
    if not result:
        return {"stations": []}
    return {"stations": [{"code": row[0], "city": row[1], "commissioned": row[2]} for row in result]}

api_calls = [
    "/v1/weather/station_count_by_country?country=Canada",
    "/v1/weather/station_names_by_country?country=Switzerland",
    "/v1/weather/station_by_code?code=REK01",
    "/v1/weather/daily_observation?code=MTL01&obs_date=2024-01-03",
    "/v1/weather/average_max_temperature_by_month?code=ZRH01&month=2024-02",
    "/v1/weather/total_precipitation?code=BGO01&start_date=2024-03-01&end_date=2024-03-31",
    "/v1/weather/hottest_days?code=SYD01&limit=3",
    "/v1/weather/wet_day_percentage?code=VAN01&threshold_mm=5.0",
    "/v1/weather/nearest_stations?latitude=46.5&longitude=-72.5&limit=3",
    "/v1/weather/condition_counts?code=TOS01",
    "/v1/weather/windiest_station_on_date?obs_date=2024-02-14",
    "/v1/weather/stations_by_name_pattern?pattern=%25Harbour%25",
    "/v1/weather/large_swing_day_count?code=DEN01&min_swing=10.5",
    "/v1/weather/cumulative_precipitation?code=SAO01&month=2024-01",
    "/v1/weather/elevation_extremes",
    "/v1/weather/average_pm25_by_country?country=Norway",
    "/v1/weather/conditions_in_month?code=KRK01&month=2024-03",
    "/v1/weather/days_crossing_temperature?temperature=0&code=MTL01",
    "/v1/weather/stations_by_operator?operator=%C3%9Cn%C3%AFcode%20Weather%20Co-op"
]
