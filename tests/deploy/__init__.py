"""Tests of the deploy files: Dockerfile, Compose, Kubernetes, Procfile."""
