import { ManagedPolicy, PolicyDocument, Role, ServicePrincipal, type AddToPrincipalPolicyResult, type PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * A function's execution role, its grants in the role's own inline policy: one CloudFormation resource where CDK's
 * role takes two (the role, and an `AWS::IAM::Policy` beside it holding the same statements).
 *
 * Functions whose grants are all the same run with one role (`join`): a role per grant set, not per function. Their
 * grants come from their props (`GroupFunction`), so sharers hold exactly what each would hold alone. A grant made to
 * one of them afterwards (`fn.addToRolePolicy`, `queue.grantSendMessages(fn)`) would reach the others: it is refused
 * while the role is shared, and once a role has one, no other function joins it.
 */
export class FunctionRole extends Role {
  /** The functions that run with it, by name. */
  private readonly functions: string[] = [];
  private readonly policy: PolicyDocument;
  /** Whose grants are being made right now (`join` … `built`): theirs are the role's by construction. */
  private building: string | undefined;
  /** It holds a grant made after some function's own: it is that function's alone. */
  private extended = false;

  private constructor(scope: Construct, id: string, grants: PolicyDocument) {
    super(scope, id, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole')],
      inlinePolicies: { grants },
    });
    this.policy = grants;
  }

  /**
   * The role of the function `name`, whose grants are all said by `grantSet`: the role of an earlier function with the
   * same set (in `scope`'s stack), else a new one made in `scope`. Then its grants, then `built(name)`.
   */
  static join(scope: Construct, name: string, grantSet: string): FunctionRole {
    const stack = Stack.of(scope);
    const roles = ROLES.get(stack) ?? new Map<string, FunctionRole>();
    ROLES.set(stack, roles);
    let role = roles.get(grantSet);
    if (!role || role.extended) {
      role = new FunctionRole(scope, 'Role', new PolicyDocument());
      roles.set(grantSet, role);
    }
    role.functions.push(name);
    role.building = name;
    return role;
  }

  /** `name`'s own grants are made: what comes after is refused while the role is shared. */
  built(name: string): void {
    if (this.building !== name) throw new Error(`${name} does not build ${this.node.path}`);
    this.building = undefined;
  }

  override addToPrincipalPolicy(statement: PolicyStatement): AddToPrincipalPolicyResult {
    if (!this.building) {
      if (this.functions.length > 1) {
        throw new Error(
          `${this.node.path} serves ${this.functions.join(', ')} (the same grants): a grant to one of them alone belongs in its props (lib/group-function.ts), where it gives that function a role of its own`,
        );
      }
      this.extended = true;
    }
    this.policy.addStatements(statement);
    return { statementAdded: true, policyDependable: this };
  }
}

/** The roles of each stack, by grant set. */
const ROLES = new WeakMap<Construct, Map<string, FunctionRole>>();
