from django.apps import AppConfig


class OfficersConfig(AppConfig):
    name = "casino.officers"
    label = "officers"
    verbose_name = "Officers"

    def ready(self) -> None:
        # The admin has autodiscovered every admin.py by now (it is the first
        # installed app); the officers' pages go in front of its URLs.
        from django.contrib import admin

        from . import readable
        from .site import install

        install(admin.site)
        readable.install(admin.site)
