from fastapi import FastAPI


from server import library, weather, weather_alerts



app = FastAPI()

from prometheus_fastapi_instrumentator import Instrumentator
Instrumentator().instrument(app).expose(app)

app.include_router(library.app)
app.include_router(weather.app)
app.include_router(weather_alerts.app)
