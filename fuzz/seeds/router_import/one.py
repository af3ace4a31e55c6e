from fastapi import APIRouter, Query
import sqlite3

app = APIRouter()

conn = sqlite3.connect('db/things/things.sqlite')
cursor = conn.cursor()

@app.get("/v1/things/count", operation_id="get_count", summary="Counts things of a kind.")
async def get_count(kind: str = Query(..., description="Kind"), limit: int = Query(5, description="Limit")):
    cursor.execute("SELECT name, n FROM things WHERE kind = ? LIMIT ?", (kind.lower(), limit))
    result = cursor.fetchall()
    if not result:
        return {"things": []}
    return {"things": [{"name": r[0], "n": r[1]} for r in result]}

@app.get("/v1/things/one", operation_id="get_one", summary="One thing.")
async def get_one(name: str = Query(..., description="Name"), scale: float = Query(1.0, description="Scale")):
    query = f"SELECT n FROM things WHERE name = '{name}'"
    cursor.execute(query)
    result = cursor.fetchone()
    if not result:
        return {"n": []}
    return {"n": result[0] * scale if result[0] is not None else None, "s": str(result)[1:-1]}
