"""manage.py seal_ledger: append a signed seal of the log up to its head.

The seal (ledger.seals) goes to settings.LEDGER_SEAL_FILE, outside the
database, signed with the Ed25519 key at settings.LEDGER_SEAL_KEY_FILE;
`--public-key PATH` also writes the public key an auditor verifies with.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ledger import seals


class Command(BaseCommand):
    help = "Seal the log up to its head into the external seal file (signed Merkle tree head)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--public-key", help="write the seal key's public half here")

    def handle(self, *args, **options) -> None:
        try:
            seal = seals.anchor()
        except ValueError as error:
            raise CommandError(str(error), returncode=1) from None
        if options["public_key"]:
            _, key_file = seals._settings_paths()
            Path(options["public_key"]).write_bytes(
                seals.public_key_pem(seals.load_private_key(key_file)))
        if seal is None:
            self.stdout.write("seal_ledger: nothing new to seal")
        else:
            self.stdout.write(f"seal_ledger: sealed {seal['tree_size']} events,"
                              f" root {seal['root']}")
