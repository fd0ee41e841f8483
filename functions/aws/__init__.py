"""Adapters to AWS services (boto3): the S3 run store, WebSocket pushes, Step Functions turns, secrets."""
