"""Running cells: the cell pipeline, the experiment kinds' dispatch, runners (serial, joblib, Spark), the results store, run metadata, verify, Spark sessions and the standalone cluster."""
