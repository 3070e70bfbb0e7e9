"""manage.py seal_ledger: append a signed seal of each book up to its head.

Each book's seal (ledger.seals) goes to its own file outside the database:
the main book's to settings.LEDGER_SEAL_FILE, the book with key K's to the
sibling `<stem>.K<suffix>`; all are signed with the Ed25519 key at
settings.LEDGER_SEAL_KEY_FILE. `--book K` seals that book alone;
`--public-key PATH` also writes the public key an auditor verifies with.
A book that does not verify is not sealed (exit 1, naming it); the other
books still are.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ledger import seals


class Command(BaseCommand):
    help = ("Seal every book (or --book K) up to its head into its external seal file"
            " (signed Merkle tree head).")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--public-key", help="write the seal key's public half here")
        parser.add_argument("--book", metavar="KEY", help="seal this book only")

    def handle(self, *args, **options) -> None:
        using = "default"   # placement (ledger.placement) will name each book's database
        failures: dict[str, str] = {}
        try:
            if options["book"]:
                sealed = {options["book"]: seals.anchor(book=options["book"], using=using)}
            else:
                sealed = seals.anchor_books(using=using)
        except seals.SealingFailed as error:
            sealed, failures = error.sealed, error.failures
        except ValueError as error:
            raise CommandError(str(error), returncode=1) from None
        if options["public_key"]:
            _, key_file = seals.settings_paths(using)
            Path(options["public_key"]).write_bytes(
                seals.public_key_pem(seals.load_private_key(key_file)))
        for key, seal in sealed.items():
            if seal is None:
                self.stdout.write(f"seal_ledger: book {key}: nothing new to seal")
            else:
                self.stdout.write(f"seal_ledger: book {key}: sealed {seal['tree_size']}"
                                  f" events, root {seal['root']}")
        if failures:
            raise CommandError("; ".join(f"book {key}: {problem}"
                                         for key, problem in failures.items()), returncode=1)
