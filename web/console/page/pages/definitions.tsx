/** Environments, roles (create one) and the three kinds of attributes. */
import { call } from '../api.js';
import { t } from '../texts.js';
import { ApiForm, Loaded, Table, useLoad } from '../ui.js';

interface Env {
  id: number;
  name: string;
  display_name: string;
}
interface Role {
  role_name: string;
  display_name: string;
}
interface Attribute {
  attribute_name: string;
  display_name: string;
  attribute_type: string;
}

function Attributes({ heading, path, member, id }: { heading: string; path: string; member: string; id: string }) {
  const d = t().definitions;
  const { answer } = useLoad(() => call<Record<string, Attribute[]>>('GET', 'auth', path));
  return (
    <>
      <h3>{heading}</h3>
      <Loaded answer={answer}>
        {(body) => (
          <Table
            id={id}
            caption={heading}
            rows={body[member] ?? []}
            columns={[
              { label: d.attributeName, render: (a) => <code>{a.attribute_name}</code> },
              { label: d.attributeDisplayName, render: (a) => a.display_name },
              { label: d.attributeType, render: (a) => a.attribute_type },
            ]}
          />
        )}
      </Loaded>
    </>
  );
}

export function Definitions() {
  const d = t().definitions;
  const envs = useLoad(() => call<{ envs: Env[] }>('GET', 'auth', '/envs'));
  const roles = useLoad(() => call<{ roles: Role[] }>('GET', 'auth', '/roles'));
  return (
    <>
      <h1 tabIndex={-1}>{t().nav.definitions}</h1>
      <section class="card">
        <h2>{d.envsHeading}</h2>
        <Loaded answer={envs.answer}>
          {(body) => (
            <Table
              id="envs"
              caption={d.envsHeading}
              rows={body.envs}
              columns={[
                { label: d.envId, render: (e) => e.id },
                { label: d.envName, render: (e) => e.name },
                { label: d.envDisplayName, render: (e) => e.display_name },
              ]}
            />
          )}
        </Loaded>
      </section>
      <section class="card">
        <h2>{d.rolesHeading}</h2>
        <Loaded answer={roles.answer}>
          {(body) => (
            <Table
              id="roles"
              caption={d.rolesHeading}
              rows={body.roles}
              columns={[
                { label: d.roleName, render: (r) => <code>{r.role_name}</code> },
                { label: d.roleDisplayName, render: (r) => r.display_name },
              ]}
            />
          )}
        </Loaded>
        <h3>{d.createRole}</h3>
        <ApiForm
          id="create-role"
          submitLabel={d.createRole}
          doneText={t().common.created}
          fields={[
            { name: 'role_name', label: d.roleName, required: true },
            { name: 'display_name', label: d.roleDisplayName, required: true },
          ]}
          onSubmit={(values) => call('POST', 'auth', '/roles', values)}
          onDone={roles.reload}
        />
      </section>
      <section class="card">
        <h2>{d.attributesHeading}</h2>
        <Attributes id="user-attributes" heading={d.userAttributes} path="/user-attributes" member="user_attributes" />
        <Attributes id="tenant-attributes" heading={d.tenantAttributes} path="/tenant-attributes" member="tenant_attributes" />
        <Attributes id="saas-user-attributes" heading={d.saasUserAttributes} path="/saas-user-attributes" member="user_attributes" />
      </section>
    </>
  );
}
