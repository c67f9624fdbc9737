"""Database layer: plans and drivers, migrations, value encoding, the thread lease."""
