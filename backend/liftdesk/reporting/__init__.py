"""Reporting: the intelligent reports (spec 001 §2 "Intelligent reports"), summed from the daily aggregates the
telemetry pipeline writes per vehicle and local day (``telemetry.models.DailyStat``)."""
