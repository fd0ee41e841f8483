"""CDK entry point (`cdk synth`). The stack is defined in infra/; synth needs no AWS credentials."""
