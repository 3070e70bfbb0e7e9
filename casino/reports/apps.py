from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "casino.reports"
    label = "reports"
    verbose_name = "Reports"
