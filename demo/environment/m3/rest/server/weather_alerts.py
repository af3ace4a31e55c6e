from fastapi import APIRouter, HTTPException, Query, Request
import sqlite3

app = APIRouter()

try:
    conn = sqlite3.connect('db/weather_alerts/weather_alerts.sqlite')
    cursor = conn.cursor()
except Exception as e:
    print(f"Warning: could not connect to database: {e}")
    conn = None
    cursor = None

# Endpoint to count alerts of one type
@app.get("/v1/weather_alerts/alert_count_by_type", operation_id="get_alert_count_by_type", summary="Returns the number of alerts of the given type (for example Heat, Frost, Wind, Snow, Fog, Heavy rain or Extreme cold) issued across all stations, including cancelled ones.")
async def get_alert_count_by_type(alert_type: str = Query(..., description="Type of the alert")):
    cursor.execute("SELECT COUNT(alert_id) FROM alerts WHERE alert_type = ?", (alert_type,))
    result = cursor.fetchone()
    if not result:
        return {"count": []}
    return {"count": result[0]}

# Endpoint to list recent headlines for a station
@app.get("/v1/weather_alerts/headlines_by_station", operation_id="get_headlines_by_station", summary="Lists the headlines of the most recent alerts issued for a station, newest first, up to the requested number.")
async def get_headlines_by_station(code: str = Query(..., description="Station code such as TOS01"), limit: int = Query(10, description="Maximum number of headlines to return")):
    cursor.execute("SELECT T2.headline FROM stations AS T1 INNER JOIN alerts AS T2 ON T1.station_id = T2.station_id WHERE T1.code = ? ORDER BY T2.issued_on DESC, T2.alert_id DESC LIMIT ?", (code, limit))
    result = cursor.fetchall()
    if not result:
        return {"headlines": []}
    return {"headlines": [row[0] for row in result]}

# Endpoint to get the latest alert of a station
@app.get("/v1/weather_alerts/latest_alert_for_station", operation_id="get_latest_alert_for_station", summary="Returns the type, severity, issue date and headline of the newest alert issued for the given station.")
async def get_latest_alert_for_station(code: str = Query(..., description="Station code")):
    cursor.execute("SELECT T2.alert_type, T2.severity, T2.issued_on, T2.headline FROM stations AS T1 INNER JOIN alerts AS T2 ON T1.station_id = T2.station_id WHERE T1.code = ? ORDER BY T2.issued_on DESC, T2.alert_id DESC LIMIT 1", (code,))
    result = cursor.fetchone()
    if not result:
        return {"alert": []}
    return {"alert_type": result[0], "severity": result[1], "issued_on": result[2], "headline": result[3]}

# Endpoint to get an alert by id
@app.get("/v1/weather_alerts/alert_by_id", operation_id="get_alert_by_id", summary="Returns the full record of one alert: station id, type, severity, severity level, issue and expiry dates, headline, issuer, cancellation flag, peak value and affected population.")
async def get_alert_by_id(alert_id: int = Query(..., description="Identifier of the alert")):
    cursor.execute("SELECT station_id, alert_type, severity, severity_level, issued_on, expires_on, headline, issuer, cancelled, peak_value, population_affected FROM alerts WHERE alert_id = ?", (alert_id,))
    result = cursor.fetchone()
    if not result:
        return {"alert": []}
    return {"alert": result}

# Endpoint to list the alerts in force on a date
@app.get("/v1/weather_alerts/active_alerts_on_date", operation_id="get_active_alerts_on_date", summary="Lists the alerts that were in force on the given date, meaning issued on or before it, expiring on or after it and not cancelled. Each entry holds the station code, the alert type and the severity.")
async def get_active_alerts_on_date(on_date: str = Query(..., description="Date in YYYY-MM-DD format")):
    cursor.execute("SELECT T1.code, T2.alert_type, T2.severity FROM stations AS T1 INNER JOIN alerts AS T2 ON T1.station_id = T2.station_id WHERE T2.issued_on <= ? AND T2.expires_on >= ? AND T2.cancelled = 0 ORDER BY T1.code, T2.alert_id", (on_date, on_date))
    result = cursor.fetchall()
    if not result:
        return {"alerts": []}
    return {"alerts": result}

# Endpoint to list alerts at or above a severity level
@app.get("/v1/weather_alerts/alerts_by_min_severity", operation_id="get_alerts_by_min_severity", summary="Lists alerts of a given type whose severity level (1 minor, 2 moderate, 3 severe, 4 extreme) is at least the requested level, most severe first.")
async def get_alerts_by_min_severity(alert_type: str = Query(..., description="Type of the alert"), min_level: int = Query(..., description="Minimum severity level from 1 to 4"), limit: int = Query(5, description="Maximum number of alerts to return")):
    cursor.execute("SELECT alert_id, severity, issued_on FROM alerts WHERE severity_level >= ? AND alert_type = ? ORDER BY severity_level DESC, issued_on, alert_id LIMIT ?", (min_level, alert_type, limit))
    result = cursor.fetchall()
    if not result:
        return {"alerts": []}
    return {"alerts": [{"alert_id": row[0], "severity": row[1], "issued_on": row[2]} for row in result]}

# Endpoint to get the share of cancelled alerts
@app.get("/v1/weather_alerts/cancelled_percentage_by_type", operation_id="get_cancelled_percentage_by_type", summary="Computes the percentage of alerts of the given type that were cancelled after being issued.")
async def get_cancelled_percentage_by_type(alert_type: str = Query(..., description="Type of the alert")):
    cursor.execute("SELECT CAST(SUM(IIF(cancelled = 1, 1, 0)) AS REAL) * 100 / COUNT(alert_id) FROM alerts WHERE alert_type = ?", (alert_type,))
    result = cursor.fetchone()
    if not result:
        return {"percentage": []}
    return {"percentage": result[0]}

# Endpoint to count alerts per month
@app.get("/v1/weather_alerts/monthly_alert_counts", operation_id="get_monthly_alert_counts", summary="Counts the alerts issued in each month for the stations of one country.")
async def get_monthly_alert_counts(country: str = Query(..., description="Country of the station")):
    cursor.execute("SELECT STRFTIME('%Y-%m', T2.issued_on) AS month, COUNT(T2.alert_id) FROM stations AS T1 INNER JOIN alerts AS T2 ON T1.station_id = T2.station_id WHERE T1.country = ? GROUP BY month ORDER BY month", (country,))
    result = cursor.fetchall()
    if not result:
        return {"months": []}
    return {"months": [{"month": row[0], "alerts": row[1]} for row in result]}

# Endpoint to get the average peak value of an alert type in a country
@app.get("/v1/weather_alerts/average_peak_value", operation_id="get_average_peak_value", summary="Calculates the average peak value behind the alerts of one type in a country; the unit depends on the type (degrees Celsius for Heat, Frost and Extreme cold, km/h for Wind, millimetres for rain and snow).")
async def get_average_peak_value(alert_type: str = Query(..., description="Type of the alert"), country: str = Query(..., description="Country of the station")):
    cursor.execute("SELECT AVG(T2.peak_value) FROM stations AS T1 INNER JOIN alerts AS T2 ON T1.station_id = T2.station_id WHERE T2.alert_type = ? AND T1.country = ?", (alert_type, country))
    result = cursor.fetchone()
    if not result:
        return {"average_peak_value": []}
    return {"average_peak_value": result[0]}

# Endpoint to list the issuers of an alert type
@app.get("/v1/weather_alerts/issuers_by_type", operation_id="get_issuers_by_type", summary="Returns a comma-separated list of the organisations that have issued alerts of the given type.")
async def get_issuers_by_type(alert_type: str = Query(..., description="Type of the alert")):
    cursor.execute("SELECT GROUP_CONCAT(DISTINCT issuer) FROM alerts WHERE alert_type = ?", (alert_type,))
    result = cursor.fetchone()
    if not result:
        return {"issuers": []}
    return {"issuers": result[0]}

# Endpoint to search alert headlines
@app.get("/v1/weather_alerts/alerts_by_headline_keyword", operation_id="get_alerts_by_headline_keyword", summary="Finds alerts whose headline contains the given text and returns their ids and headlines, oldest first.")
async def get_alerts_by_headline_keyword(keyword: str = Query(..., description="Text to look for in the headline"), limit: int = Query(10, description="Maximum number of alerts to return")):
    cursor.execute("SELECT alert_id, headline FROM alerts WHERE headline LIKE '%' || ? || '%' ORDER BY issued_on, alert_id LIMIT ?", (keyword, limit))
    result = cursor.fetchall()
    if not result:
        return {"alerts": []}
    return {"alerts": [{"alert_id": row[0], "headline": row[1]} for row in result]}

# Endpoint to get how long alerts of a type stay in force
@app.get("/v1/weather_alerts/alert_duration_stats", operation_id="get_alert_duration_stats", summary="Returns the average and the longest validity, in days, of the alerts of one type.")
async def get_alert_duration_stats(alert_type: str = Query(..., description="Type of the alert")):
    cursor.execute("SELECT AVG(JULIANDAY(expires_on) - JULIANDAY(issued_on)), MAX(JULIANDAY(expires_on) - JULIANDAY(issued_on)) FROM alerts WHERE alert_type = ?", (alert_type,))
    result = cursor.fetchone()
    if not result:
        return {"durations": []}
    return {"average_days": result[0], "max_days": result[1]}

# Endpoint to rank stations by number of alerts
@app.get("/v1/weather_alerts/stations_ranked_by_alerts", operation_id="get_stations_ranked_by_alerts", summary="Ranks the stations by the number of alerts issued for them; stations with the same count share a dense rank. Each entry holds the rank, the station code and the count.")
async def get_stations_ranked_by_alerts(limit: int = Query(5, description="Number of stations to return")):
    cursor.execute("SELECT DENSE_RANK() OVER (ORDER BY COUNT(T2.alert_id) DESC) AS rnk, T1.code, COUNT(T2.alert_id) FROM stations AS T1 INNER JOIN alerts AS T2 ON T1.station_id = T2.station_id GROUP BY T1.station_id ORDER BY rnk, T1.code LIMIT ?", (limit,))
    result = cursor.fetchall()
    if not result:
        return {"stations": []}
    return {"stations": result}

# Endpoint to get the population covered by alerts
@app.get("/v1/weather_alerts/population_affected", operation_id="get_population_affected", summary="Adds up the population covered by the alerts of a given severity issued in one month. Alerts without a population estimate are ignored; the result is null when no alert matches.")
async def get_population_affected(severity: str = Query(..., description="Severity: minor, moderate, severe or extreme"), month: str = Query(..., description="Month in YYYY-MM format")):
    cursor.execute("SELECT SUM(population_affected) FROM alerts WHERE severity = ? AND STRFTIME('%Y-%m', issued_on) = ?", (severity, month))
    result = cursor.fetchone()
    if not result:
        return {"population": []}
    return {"population": result[0]}

# Endpoint to get the alert counts per type with a grand total
@app.get("/v1/weather_alerts/alert_type_breakdown", operation_id="get_alert_type_breakdown", summary="Breaks the alerts of one station down by type and appends a final row labelled TOTAL with the overall count.")
async def get_alert_type_breakdown(code: str = Query(..., description="Station code")):
    cursor.execute("SELECT * FROM (SELECT T2.alert_type, COUNT(T2.alert_id) FROM stations AS T1 INNER JOIN alerts AS T2 ON T1.station_id = T2.station_id WHERE T1.code = ? GROUP BY T2.alert_type ORDER BY T2.alert_type) UNION ALL SELECT 'TOTAL', COUNT(T2.alert_id) FROM stations AS T1 INNER JOIN alerts AS T2 ON T1.station_id = T2.station_id WHERE T1.code = ?", (code, code))
    result = cursor.fetchall()
    if not result:
        return {"breakdown": []}
    return {"breakdown": result}

# Endpoint to list severe alerts in a country since a date
@app.get("/v1/weather_alerts/severe_alerts_in_country", operation_id="get_severe_alerts_in_country", summary="Lists the headlines of alerts issued on or after a date for stations of a country whose severity level is at least the given value.")
async def get_severe_alerts_in_country(country: str = Query(..., description="Country of the station"), since: str = Query(..., description="Earliest issue date in YYYY-MM-DD format"), min_level: int = Query(..., description="Minimum severity level from 1 to 4")):
    cursor.execute("SELECT T2.headline FROM stations AS T1 INNER JOIN alerts AS T2 ON T1.station_id = T2.station_id WHERE T2.severity_level >= ? AND T1.country = ? AND T2.issued_on >= ? ORDER BY T2.issued_on, T2.alert_id", (min_level, country, since))
    result = cursor.fetchall()
    if not result:
        return {"headlines": []}
    return {"headlines": [row[0] for row in result]}

# Endpoint to list alerts issued without a named issuer
@app.get("/v1/weather_alerts/alerts_by_issuer", operation_id="get_alerts_by_issuer", summary="Counts the alerts of each type published by the given issuer. When no issuer is given, counts the alerts whose issuer was not recorded.")
async def get_alerts_by_issuer(issuer: str = Query(None, description="Issuing organisation; leave out for alerts without a recorded issuer")):
    cursor.execute("SELECT alert_type, COUNT(alert_id) FROM alerts WHERE issuer IS ? GROUP BY alert_type ORDER BY alert_type", (issuer,))
    result = cursor.fetchall()
    if not result:
        return {"counts": []}
    return {"counts": [{"alert_type": row[0], "alerts": row[1]} for row in result]}

api_calls = [
    "/v1/weather_alerts/alert_count_by_type?alert_type=Frost",
    "/v1/weather_alerts/headlines_by_station?code=TOS01&limit=3",
    "/v1/weather_alerts/latest_alert_for_station?code=YZF01",
    "/v1/weather_alerts/alert_by_id?alert_id=42",
    "/v1/weather_alerts/active_alerts_on_date?on_date=2024-02-10",
    "/v1/weather_alerts/alerts_by_min_severity?alert_type=Wind&min_level=3&limit=5",
    "/v1/weather_alerts/cancelled_percentage_by_type?alert_type=Heavy%20rain",
    "/v1/weather_alerts/monthly_alert_counts?country=Canada",
    "/v1/weather_alerts/average_peak_value?alert_type=Heat&country=Argentina",
    "/v1/weather_alerts/issuers_by_type?alert_type=Snow",
    "/v1/weather_alerts/alerts_by_headline_keyword?keyword=Reykjav%C3%ADk&limit=5",
    "/v1/weather_alerts/alert_duration_stats?alert_type=Fog",
    "/v1/weather_alerts/stations_ranked_by_alerts?limit=5",
    "/v1/weather_alerts/population_affected?severity=severe&month=2024-03",
    "/v1/weather_alerts/alert_type_breakdown?code=MTL01",
    "/v1/weather_alerts/severe_alerts_in_country?country=Argentina&since=2024-03-01&min_level=2",
    "/v1/weather_alerts/alerts_by_issuer"
]
