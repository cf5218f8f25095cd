/** The functionConfig `spec` of SiteFromCatalogue (see spec.schema.json). */
export interface RoleRule {
  hosts?: string[];
  count?: number;
  selector?: Record<string, string>;
  hardwareProfile?: string;
}

export interface SitePhase {
  path: string;
  hosts?: 'controlPlane' | 'workers' | 'none' | string[];
  role?: 'controlPlane' | 'workers' | 'none';
  count?: number;
  phaseName?: string;
  clusterName?: string;
}

export interface Spec {
  mode?: 'generate' | 'distil';
  hosts?: string[];
  namespace?: string;
  outputDir?: string;
  credentials?: { mode?: 'reference' | 'emit' | 'sops'; secretName?: string; sops?: { age?: string[]; encryptedRegex?: string } };
  ipam?: Record<string, { cidr?: string; start?: string; end?: string; reserved?: string[] }>;
  roles?: { controlPlane?: RoleRule; workers?: RoleRule };
  inventory?: { linkNics?: Record<string, string>; hardwareProfile?: string };
  discovery?: {
    repository: string;
    sitePath: string;
    site?: string;
    dir?: string;
    schedule?: string;
    namespace?: string;
    image?: string;
    gitImage?: string;
    baseBranch?: string;
    branch?: string;
    bmcCredentialsSecret?: string;
    gitSecret?: string;
    egress: { bmcCidrs?: string[]; bmcPorts?: number[]; gitCidrs: string[]; gitPort?: number };
  };
  site?: {
    name: string;
    root?: string;
    type: string;
    dir?: string;
    phases?: SitePhase[];
    catalogues?: Record<string, unknown>[];
    phasePlan?: { name?: string; fromType?: string };
  };
}
