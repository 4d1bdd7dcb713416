"""The repository root is on sys.path for the tests (pytest puts a root conftest's folder
there): tests import `bench` and the helpers of other test folders (`tests.symbolic...`)
as packages instead of editing sys.path."""
