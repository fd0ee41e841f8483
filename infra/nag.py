"""cdk-nag's AWS Solutions checks on the stack, and the findings we accept — each with its reason.

`attach(app)` runs the checks at synth (an unaccepted finding is an error annotation, and
`cdk synth` / `cdk deploy` stop on it); `accept(stack)` records the accepted ones. The infra
tests synthesize with the checks on and fail on any error.
"""

from __future__ import annotations

from aws_cdk import App, Aspects, Stack
from cdk_nag import AwsSolutionsChecks, NagPackSuppression, NagSuppressions, RegexAppliesTo

Applies = tuple[str, ...]

# (rule, reason, applies_to). applies_to narrows a finding to the named policy or wildcard; a
# pattern in slashes is a regular expression over cdk-nag's finding (logical ids change with
# construct names, so resources are matched by shape).
_ACCEPTED: tuple[tuple[str, str, Applies], ...] = (
    (
        "AwsSolutions-IAM4",
        "AWSLambdaBasicExecutionRole only lets a function write its own CloudWatch logs.",
        ("Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",),
    ),
    (
        "AwsSolutions-IAM5",
        "CDK's grants on the run-store bucket: object keys are per turn (runs/<turn id>/...), so "
        "object-level actions need a key wildcard within that one bucket.",
        (
            "Action::s3:Abort*",
            "Action::s3:DeleteObject*",
            "Action::s3:GetBucket*",
            "Action::s3:GetObject*",
            "Action::s3:List*",
            "/^Resource::<RunStore[A-Za-z0-9]+\\.Arn>\\/\\*$/g",
        ),
    ),
    (
        "AwsSolutions-IAM5",
        "CDK's BucketDeployment copies the built page from CDK's asset bucket into the site bucket: "
        "it reads and writes objects under both.",
        (
            "/^Resource::<SiteWeb[A-Za-z0-9]+\\.Arn>\\/\\*$/g",
            "/^Resource::arn:<AWS::Partition>:s3:::cdk-[a-z0-9]+-assets-.*\\/\\*$/g",
        ),
    ),
    (
        "AwsSolutions-IAM5",
        "X-Ray's PutTraceSegments/PutTelemetryRecords and the state machine's log delivery accept "
        "no resource narrower than *.",
        ("Resource::*",),
    ),
    (
        "AwsSolutions-IAM5",
        "WebSocket pushes go to connection ids that exist only at run time (@connections/<id>).",
        ("/^Resource::arn:<AWS::Partition>:execute-api:.*\\/@connections\\/\\*$/g",),
    ),
    (
        "AwsSolutions-IAM5",
        "The state machine invokes each step function by ARN and version (<fn>:*), as CDK grants it.",
        ("/^Resource::<Workflow[A-Za-z0-9]+\\.Arn>:\\*$/g",),
    ),
    (
        "AwsSolutions-IAM5",
        "Reading and stopping a turn's execution: execution ARNs are made per turn under the one "
        "state machine.",
        ("/^Resource::arn:<AWS::Partition>:states:.*:execution:.*$/g",),
    ),
    (
        "AwsSolutions-L1",
        "python3.13 is the runtime the dependency layer is built for (layers/build.py) and the "
        "newest with SnapStart for Python; moving is a deliberate upgrade, not a drift.",
        (),
    ),
    (
        "AwsSolutions-APIG4",
        "The application authenticates every data route itself (access key or signed session, "
        "docs/API.md); health, sign-in and the WebSocket $connect check are open by design.",
        (),
    ),
    (
        "AwsSolutions-SMG4",
        "The secret holds third-party keys (GitHub, model providers) that only their issuers can "
        "rotate; `previously aws-secrets` replaces them and --generate-key rotates the access key. "
        "The origin secret must change in CloudFront and the functions at once, which a stack "
        "update that replaces it does; rotated alone it would refuse every request.",
        (),
    ),
    (
        "AwsSolutions-S1",
        "The run store holds expiring turn records and the site bucket only the built page, read "
        "through CloudFront with OAC; the API stages keep access logs.",
        (),
    ),
    (
        "AwsSolutions-SF1",
        "Logging ALL events would copy every message the user sends into CloudWatch; the machine "
        "logs errors (without execution data) and X-Ray traces each execution.",
        (),
    ),
    (
        "AwsSolutions-CFR3",
        "CloudFront standard logs would need an ACL-enabled log bucket; the API stages behind it "
        "keep access logs of every API call.",
        (),
    ),
    (
        "AwsSolutions-CFR4",
        "The default *.cloudfront.net certificate fixes the minimum TLS version; a custom domain "
        "with its own certificate (docs/DEPLOY.md) is where TLS 1.2 is enforced.",
        (),
    ),
)


def attach(app: App) -> None:
    """Run the AWS Solutions checks over every stack of `app` at synth."""
    Aspects.of(app).add(AwsSolutionsChecks(verbose=True))


def accept(stack: Stack) -> None:
    """Record the accepted findings (see `_ACCEPTED`) on `stack`."""
    NagSuppressions.add_stack_suppressions(
        stack,
        [
            NagPackSuppression(id=rule, reason=reason, applies_to=[_applies(a) for a in applies] or None)
            for rule, reason, applies in _ACCEPTED
        ],
    )


def _applies(pattern: str) -> str | RegexAppliesTo:
    return RegexAppliesTo(regex=pattern) if pattern.startswith("/") else pattern
